"""Rapid-fire answers for Module 3 that are best given as code."""

# --8<-- [start:linear_params]
from torch import nn

layer = nn.Linear(128, 64)
# 128 * 64 weights + 64 biases
print(sum(p.numel() for p in layer.parameters()))
# > 8256
# --8<-- [end:linear_params]

# --8<-- [start:scalar_loss]
import torch

w = torch.ones(3, requires_grad=True)
per_sample = w * torch.tensor([1.0, 2.0, 3.0])  # a vector: reduction="none"
try:
    per_sample.backward()
except RuntimeError as err:
    print(err)
# > grad can be implicitly created only for scalar outputs
per_sample.mean().backward()  # reduce to a scalar first
print(w.grad)
# > tensor([0.3333, 0.6667, 1.0000])
# --8<-- [end:scalar_loss]

# --8<-- [start:two_zero_grads]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
# only the head is optimized
optimizer = torch.optim.SGD(model[1].parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
optimizer.zero_grad()  # clears the head's grads only
print(model[0].weight.grad is None, model[1].weight.grad is None)
# > False True
model.zero_grad()  # clears every parameter of the model
print(model[0].weight.grad is None)
# > True
# --8<-- [end:two_zero_grads]

# --8<-- [start:eval_keeps_grad]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).eval()
out = model(torch.randn(2, 4))
# eval() switches modes, not autograd
print(model.training, model[1].training, out.requires_grad)
# > False False True
# --8<-- [end:eval_keeps_grad]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert sum(p.numel() for p in layer.parameters()) == 128 * 64 + 64
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (torch.ones(2, requires_grad=True) * 2).backward()
    torch.testing.assert_close(w.grad, torch.tensor([1.0, 2.0, 3.0]) / 3)
    # After model.zero_grad() every grad is None; the optimizer only ever touched the head.
    assert all(p.grad is None for p in model.parameters())
    # eval() left autograd on: backward works and fills the grads; dropout is off (deterministic output).
    x = torch.randn(2, 4)
    torch.testing.assert_close(model(x), model[0](x))
    model(x).sum().backward()
    assert model[0].weight.grad is not None
    assert out.grad_fn is not None


if __name__ == "__main__":
    _check()
