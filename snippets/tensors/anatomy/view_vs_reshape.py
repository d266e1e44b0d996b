"""view needs stride compatibility, not contiguity; reshape views when it can and copies when it must."""

# --8<-- [start:demo]
import torch

x = torch.arange(24).reshape(2, 3, 4)
p = x.permute(1, 0, 2)  # shape (3, 2, 4), strides (4, 12, 1)
print(p.is_contiguous())
# > False
v = p.view(3, 2, 2, 2)  # only splits the last dim: expressible with strides
print(v.stride())
# > (4, 12, 2, 1)
print(v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
# > True
# --8<-- [end:demo]

# --8<-- [start:fallback]
import torch

m = torch.arange(6).reshape(2, 3)
t = m.t()  # shape (3, 2), strides (1, 3)
try:
    t.view(6)  # would merge two dims that are not back to back in memory
except RuntimeError as err:
    # the message goes on to suggest .reshape(...)
    print(str(err).split(" (")[0])
# > view size is not compatible with input tensor's size and stride
flat = t.reshape(6)  # no view exists, so reshape copies
print(flat.untyped_storage().data_ptr() == m.untyped_storage().data_ptr())
# > False
same_storage = m.reshape(3, 2).untyped_storage().data_ptr()
print(same_storage == m.untyped_storage().data_ptr())
# > True
print(m.contiguous() is m, t.contiguous().stride())
# > True (2, 1)
# --8<-- [end:fallback]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    not_viewable = "view size is not compatible with input tensor's size and stride"

    # Non-contiguous, yet viewable: splitting a dim never needs contiguity.
    assert not p.is_contiguous()
    assert torch.equal(v, p.reshape(3, 2, 2, 2))
    # Merging needs the merged dims to be back to back (stride[i] == size[i+1] * stride[i+1]).
    with pytest.raises(RuntimeError, match=not_viewable):
        p.view(6, 4)  # dims 0, 1 of p: stride 4 != 2 * 12
    with pytest.raises(RuntimeError, match=not_viewable):
        p.view(3, 8)  # dims 1, 2 of p: stride 12 != 4 * 1
    # A slice is non-contiguous too, but its last two dims still merge.
    s = x[:, 1:]  # shape (2, 2, 4), strides (12, 4, 1), offset 4
    assert not s.is_contiguous()
    assert s.view(2, 8).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    with pytest.raises(RuntimeError, match=not_viewable):
        s.view(16)
    # Same shape, or only size-1 dims added: always a view, even on the transpose.
    assert t.view(3, 2).data_ptr() == m.data_ptr()
    assert t.view(3, 1, 2).data_ptr() == m.data_ptr()
    assert t.view(3, 1, 2).view(3, 2).stride() == t.stride()  # and dropped again

    # The failing view and the reshape fallback.
    with pytest.raises(RuntimeError, match=not_viewable + r".*Use \.reshape\(\.\.\.\) instead"):
        t.view(6)
    assert torch.equal(flat, torch.tensor([0, 3, 1, 4, 2, 5]))
    assert flat.untyped_storage().data_ptr() != m.untyped_storage().data_ptr()
    assert t.contiguous().view(6).tolist() == flat.tolist()
    assert t.contiguous().untyped_storage().data_ptr() != m.untyped_storage().data_ptr()
    # flatten is reshape-based: a view of a contiguous tensor, a copy of the transpose.
    assert m.flatten().untyped_storage().data_ptr() == m.untyped_storage().data_ptr()
    assert t.flatten().untyped_storage().data_ptr() != m.untyped_storage().data_ptr()

    # Don't rely on reshape aliasing either way: a write through it may or may not reach the source.
    src = torch.zeros(2, 3)
    src.reshape(6)[0] = 1.0  # a view: the write lands in src
    assert src[0, 0] == 1.0
    src.t().reshape(6)[1] = 2.0  # a copy: the write is lost
    assert src.eq(2.0).sum() == 0

    # contiguous() is a no-op (the same object) when already contiguous; clone() always copies.
    assert m.contiguous() is m
    assert m.clone().data_ptr() != m.data_ptr()


if __name__ == "__main__":
    _check()
