"""Strides and storage offset: transpose, permute and basic slicing only rewrite metadata over shared storage."""

# --8<-- [start:demo]
import torch

x = torch.arange(24).reshape(2, 3, 4)
print(x.stride(), x.storage_offset())
# > (12, 4, 1) 0
print(x.transpose(0, 2).stride(), x.permute(1, 0, 2).stride())
# > (1, 4, 12) (4, 12, 1)
row = x[1, 2]  # starts 1*12 + 2*4 = 20 elements into the storage
print(row.storage_offset(), row.tolist())
# > 20 [20, 21, 22, 23]
every_other = x[:, ::2]  # a step multiplies the stride
print(every_other.shape, every_other.stride())
# > torch.Size([2, 2, 4]) (12, 8, 1)
views = (x, x.transpose(0, 2), x.permute(1, 0, 2), row, every_other)
print(len({v.untyped_storage().data_ptr() for v in views}))
# > 1
row[0] = -1  # a write through a view lands in x
print(x[1, 2, 0].item())
# > -1
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import itertools

    import pytest

    # The address rule: element [i, j, k] lives at storage_offset + i*s0 + j*s1 + k*s2.
    storage = x.flatten()  # x is contiguous, so this is its storage in order
    for view in views:
        for index in itertools.product(*(range(n) for n in view.shape)):
            address = view.storage_offset() + sum(i * s for i, s in zip(index, view.stride(), strict=True))
            assert view[index] == storage[address]
        rebuilt = torch.as_strided(x, view.shape, view.stride(), view.storage_offset())
        assert torch.equal(rebuilt, view)

    # O(1): no view allocates; they all read the same bytes, which hold only x's 24 elements.
    assert all(v.untyped_storage().nbytes() == 24 * x.element_size() for v in views)
    # data_ptr() includes the offset; untyped_storage().data_ptr() is where the shared block starts.
    assert row.data_ptr() == x.data_ptr() + 20 * x.element_size()
    assert every_other.storage_offset() == 0 and not every_other.is_contiguous()

    # Advanced indexing and flip are not views: they copy.
    assert x[[0, 1]].untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x[x > 5].untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x.flip(0).untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x.narrow(2, 1, 2).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()  # narrow is a view
    # Unlike NumPy, PyTorch has no negative strides, so a negative step is rejected.
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]

    # `.T` reverses all dims; on anything but 2-D that is deprecated. `.mT` swaps the last two.
    x_t_warning = "use of `x.T` on tensors of dimension other than 2.*deprecated.*throw an error"
    with pytest.warns(UserWarning, match=x_t_warning):
        reversed_dims = x.T
    assert reversed_dims.shape == (4, 3, 2) and reversed_dims.stride() == (1, 4, 12)
    assert x.mT.shape == (2, 4, 3) and x.mT.stride() == (12, 1, 4)


if __name__ == "__main__":
    _check()
