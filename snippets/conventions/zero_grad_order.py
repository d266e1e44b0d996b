"""Spot the bug (conventions page): `zero_grad()` between `backward()` and `step()` wipes the gradients."""

# --8<-- [start:buggy]
import torch

w = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
x = torch.tensor([1.0, 2.0, 3.0])
y = 2 * x  # the target: w should learn 2
for _ in range(20):
    loss = ((w * x - y) ** 2).mean()
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
print(f"loss {loss.item():.2f}, w {w.item():.2f}")
# > loss 18.67, w 0.00
# --8<-- [end:buggy]

buggy = {"loss": loss.item(), "w": w.item(), "grad": w.grad}

# --8<-- [start:fixed]
import torch

w = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
x = torch.tensor([1.0, 2.0, 3.0])
y = 2 * x  # the target: w should learn 2
for _ in range(20):
    optimizer.zero_grad()
    loss = ((w * x - y) ** 2).mean()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.2f}, w {w.item():.2f}")
# > loss 0.00, w 2.00
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The bug: step() finds .grad set to None (zero_grad's default since 2.0) and skips w, so the loss
    # never moves from its starting value mean((0 - 2x)^2) = 56/3.
    assert buggy["grad"] is None
    assert buggy["w"] == 0.0
    assert buggy["loss"] == pytest.approx(56 / 3)
    # With set_to_none=False the grads are zeros instead, and plain SGD still does not move.
    v = torch.zeros(1, requires_grad=True)
    sgd = torch.optim.SGD([v], lr=0.1)
    ((v * x - y) ** 2).mean().backward()
    sgd.zero_grad(set_to_none=False)
    sgd.step()
    assert torch.equal(v.grad, torch.zeros(1)) and v.item() == 0.0
    # The fix: clear the old grads before backward() fills new ones; w learns 2.
    assert loss.item() < 1e-6
    torch.testing.assert_close(w.detach(), torch.tensor([2.0]))
    # Clearing right after step() works just as well: what matters is backward() -> step() with nothing between.
    u = torch.zeros(1, requires_grad=True)
    sgd = torch.optim.SGD([u], lr=0.1)
    for _ in range(20):
        ((u * x - y) ** 2).mean().backward()
        sgd.step()
        sgd.zero_grad()
    torch.testing.assert_close(u.detach(), torch.tensor([2.0]))


if __name__ == "__main__":
    _check()
