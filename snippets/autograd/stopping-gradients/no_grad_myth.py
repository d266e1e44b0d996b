"""no_grad protects nothing: optimizers update parameters under no_grad; a no_grad forward makes backward raise."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()
model(torch.ones(4, 2)).pow(2).mean().backward()
with torch.no_grad():  # does not lock anything...
    opt.step()  # ...the step itself runs with grad mode off
print(torch.equal(model.weight, before))
# > False
with torch.no_grad():
    # forward by mistake under no_grad
    loss = model(torch.ones(4, 2)).pow(2).mean()
try:
    loss.backward()
except RuntimeError as err:
    print(err)
# > element 0 of tensors does not require grad and does not have a grad_fn
# --8<-- [end:demo]

# --8<-- [start:manual_update]
import torch

p = torch.ones(2, requires_grad=True)
(p * p).sum().backward()
try:
    p -= 0.1 * p.grad  # outside no_grad, autograd would have to record this
except RuntimeError as err:
    print(err)
# > a leaf Variable that requires grad is being used in an in-place operation.
with torch.no_grad():
    p -= 0.1 * p.grad  # what SGD does: an unrecorded in-place update
print(p)
# > tensor([0.8000, 0.8000], requires_grad=True)
# --8<-- [end:manual_update]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch.overrides import TorchFunctionMode

    # The step moved the weights by -lr * grad.
    assert not torch.equal(model.weight.detach(), before)
    # Optimizers switch grad mode off themselves: spy on every torch call made inside a bare step().
    modes = []

    class GradModeSpy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func.__name__ == "add_":  # SGD's parameter update: p.add_(grad, alpha=-lr)
                modes.append(torch.is_grad_enabled())
            return func(*args, **(kwargs or {}))

    lin = nn.Linear(2, 1)
    sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
    lin(torch.ones(4, 2)).sum().backward()
    assert torch.is_grad_enabled()
    with GradModeSpy():
        sgd.step()  # no explicit no_grad here
    assert modes == [False, False]  # weight and bias, both updated with grad mode off
    assert lin.weight.is_leaf and lin.weight.grad_fn is None
    # A no_grad forward leaves nothing to differentiate: backward raises rather than silently skipping updates.
    assert not loss.requires_grad and loss.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        loss.backward()
    # The manual update.
    torch.testing.assert_close(p.detach(), torch.tensor([0.8, 0.8]))
    assert p.is_leaf


if __name__ == "__main__":
    _check()
