"""Loss not decreasing: check the starting loss, then that every parameter gets a gradient and moves."""

# --8<-- [start:demo]
import math

import torch
from torch import nn

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
# a new head, swapped in after the optimizer was built
model[2] = nn.Linear(64, 10)

x, y = torch.randn(32, 20), torch.randint(0, 10, (32,))
loss = nn.functional.cross_entropy(model(x), y)
# 1. at init, CE should be about ln(classes)
print(abs(loss.item() - math.log(10)) < 0.3)
# > True

before = {name: p.detach().clone() for name, p in model.named_parameters()}
optimizer.zero_grad()
loss.backward()
optimizer.step()
no_grad = [
    name
    for name, p in model.named_parameters()
    if p.grad is None or p.grad.abs().sum() == 0
]
frozen = [
    name for name, p in model.named_parameters() if torch.equal(p, before[name])
]
# 2. every parameter must get a grad and move
print("no gradient:", no_grad, "| did not move:", frozen)
# > no gradient: [] | did not move: ['2.weight', '2.bias']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The head is not in the optimizer: that is why it got a gradient but did not move.
    in_optimizer = {
        id(p) for group in optimizer.param_groups for p in group["params"]
    }
    assert (
        id(model[2].weight) not in in_optimizer
        and id(model[0].weight) in in_optimizer
    )
    assert no_grad == [] and frozen == ["2.weight", "2.bias"]


if __name__ == "__main__":
    _check()
