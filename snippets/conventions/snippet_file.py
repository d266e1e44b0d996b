"""A model snippet: the shown section is what the page prints; the checks below it prove the claims."""

# --8<-- [start:demo]
import torch

x = torch.arange(6).reshape(2, 3)
y = x.t()  # a view: same storage, swapped strides
print(y.is_contiguous())
# > False
z = y.reshape(6)  # a view is impossible here, so reshape copies
print(z.tolist())
# > [0, 3, 1, 4, 2, 5]
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.raises(RuntimeError, match="view size is not compatible"):
        y.view(6)
    assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()  # t() did not copy
    assert z.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()  # reshape did


if __name__ == "__main__":
    _check()
