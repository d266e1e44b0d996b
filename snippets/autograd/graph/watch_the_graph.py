"""The forward pass that "Watch the Graph Think" steps through: four recorded ops, two leaves."""

# --8<-- [start:forward]
import torch

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x = torch.ones(5)
loss = (x @ w + b).sum()  # records mm (as a 1x5 @ 5x3), squeeze, add, sum
# --8<-- [end:forward]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert loss.grad_fn.name() == "SumBackward0"
    assert w.grad is None and b.grad is None  # nothing has run backward yet
    loss.backward()
    torch.testing.assert_close(b.grad, torch.ones(3))  # d(sum)/d(add) is 1, passed on unchanged to b
    torch.testing.assert_close(w.grad, torch.ones(5, 3))  # outer(x, ones(3)) with x all ones


if __name__ == "__main__":
    _check()
