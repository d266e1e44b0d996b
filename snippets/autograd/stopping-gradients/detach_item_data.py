"""detach() returns an untracked alias, item() a Python number, and .data an alias that autograd's checks cannot see."""

# --8<-- [start:demo]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w**2).sum()
print(loss.detach(), loss.item())  # a 0-d tensor alias vs a Python float
# > tensor(5.) 5.0
e = w.exp()  # exp saves its output for backward
e.data.zero_()  # .data: the same write, hidden from the version counter
e.sum().backward()
print(w.grad)  # silently wrong: d/dw exp(w) is exp(w), not 0
# > tensor([0., 0.])
# --8<-- [end:demo]

# --8<-- [start:logging]
import torch
from torch import nn

model = nn.Linear(4, 1)
total = 0.0
for _ in range(3):  # an evaluation loop that forgot no_grad
    # keeps every batch's graph alive
    total += model(torch.randn(8, 4)).pow(2).mean()
print(type(total).__name__, total.grad_fn.name())
# > Tensor AddBackward0
running = 0.0
for _ in range(3):
    # a float: each graph is freed
    running += model(torch.randn(8, 4)).pow(2).mean().item()
print(type(running).__name__)
# > float
# --8<-- [end:logging]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # detach shares memory with the source; item copies the value out into Python.
    detached = loss.detach()
    assert detached.data_ptr() == loss.data_ptr() and not detached.requires_grad
    assert isinstance(loss.item(), float) and loss.item() == 5.0
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        w.item()
    # On the CPU, detach().cpu().numpy() is still an alias; .copy() makes the snapshot.
    arr = w.detach().cpu().numpy()
    assert arr.ctypes.data == w.data_ptr() and arr.copy().ctypes.data != w.data_ptr()
    # .data is hidden from the version counter; the same write through detach() is caught.
    assert w.grad.tolist() == [0.0, 0.0]
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    ev = v.exp()
    ev.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ev.sum().backward()
    # Without any write the true gradient is exp(w).
    u = torch.tensor([1.0, 2.0], requires_grad=True)
    u.exp().sum().backward()
    torch.testing.assert_close(u.grad, torch.tensor([1.0, 2.0]).exp())

    # `total` holds all three graphs, each with the batch its addmm saved.
    def count(node, name, seen):
        if node is None or node in seen:
            return 0
        seen.add(node)
        return (node.name() == name) + sum(count(child, name, seen) for child, _ in node.next_functions)

    assert count(total.grad_fn, "AddmmBackward0", set()) == 3
    assert count(total.grad_fn, "PowBackward0", set()) == 3
    assert isinstance(running, float)


if __name__ == "__main__":
    _check()
