""".data writes skip the version counter and silently corrupt the gradient; .detach() writes share it and raise."""

# --8<-- [start:demo]
import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.sigmoid(x)  # saved for backward
# same memory, but a fresh version counter: autograd never hears of it
y.data.mul_(2)
y.sum().backward()  # no error...
print(x.grad)  # ...computed from the doubled y
# > tensor([-0.3049,  0.2486, -1.3416])
s = torch.sigmoid(x.detach())
print(s * (1 - s))  # the true gradient
# > tensor([0.2350, 0.1966, 0.1050])

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.sigmoid(x)
y.detach().mul_(2)  # same memory and the same version counter
try:
    y.sum().backward()
except RuntimeError as err:
    print(str(err).split(" has been ")[1].split(":")[0])
# > modified by an inplace operation
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    def fresh():
        leaf = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        return leaf, torch.sigmoid(leaf)

    # Both aliases share storage and are cut from the graph...
    leaf, out = fresh()
    for alias in (out.data, out.detach()):
        assert alias.data_ptr() == out.data_ptr() and not alias.requires_grad and alias.grad_fn is None
    # ...but only detach() shares the version counter.
    out.data.mul_(2)
    assert out._version == 0
    out.detach().mul_(1)
    assert out._version == 1

    # .data: no error, and the gradient is computed from the modified value, 2s(1 - 2s) instead of s(1 - s).
    leaf, out = fresh()
    out.data.mul_(2)
    out.sum().backward()
    s = torch.sigmoid(leaf.detach())
    torch.testing.assert_close(leaf.grad, 2 * s * (1 - 2 * s))
    assert not torch.allclose(leaf.grad, s * (1 - s))
    # .detach(): the same write is caught at backward.
    leaf, out = fresh()
    out.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()

    # On a leaf parameter, .data even skips the leaf check that a plain in-place op gets...
    param = torch.ones(3, requires_grad=True)
    param.data.add_(1)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        param.add_(1)
    # ...and the supported way to edit weights by hand is an in-place op under no_grad.
    with torch.no_grad():
        param.mul_(0.5)
    assert torch.equal(param.detach(), torch.ones(3)) and param.requires_grad and param.is_leaf

    # The failed backward in the demo stopped before any gradient reached x.
    assert x.grad is None


if __name__ == "__main__":
    _check()
