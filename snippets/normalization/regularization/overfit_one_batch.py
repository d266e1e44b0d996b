"""Overfit one batch first: a working pipeline drives the loss to ~0; a bug shows up as a floor."""

# --8<-- [start:sanity_check]
import torch
from torch import nn

# ONE batch, even with random labels
x, y = torch.randn(16, 20), torch.randint(0, 4, (16,))
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()

for _ in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
# the model, loss and update path can fit it: memorized
print(loss.item() < 0.01)
# > True
# --8<-- [end:sanity_check]

sanity_loss, sanity_model, sanity_x, sanity_y = loss.item(), model, x, y

# --8<-- [start:caught_bug]
import math

import torch
from torch import nn

x, y = torch.randn(16, 20), torch.randint(0, 4, (16,))
# the bug
model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4), nn.Softmax(dim=1)
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
# applies log_softmax itself, to probabilities now
loss_fn = nn.CrossEntropyLoss()

for _ in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
# CE of a perfect one-hot "logit" vector over 4 classes
floor = math.log(1 + 3 / math.e)
# the loss cannot go below it: the check catches the bug
print(round(floor, 4), loss.item() > floor)
# > 0.7437 True
# --8<-- [end:caught_bug]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch.nn.functional as F

    # The healthy pipeline memorized the batch: loss ~0 and every label predicted.
    assert sanity_loss < 0.01
    with torch.no_grad():
        assert torch.equal(sanity_model(sanity_x).argmax(dim=1), sanity_y)
    # A fresh classifier starts near log(number of classes): the first number to check in any new run.
    fresh = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
    with torch.no_grad():
        assert (
            abs(loss_fn(fresh(sanity_x), sanity_y).item() - math.log(4)) < 0.3
        )
    # The buggy one trained too (its loss fell from ~log 4) but sits just above the floor, never near 0.
    assert floor < loss.item() < 0.80 and math.log(4) - loss.item() > 0.5
    # The floor is exact: the best softmax output is a one-hot vector, and CE(one-hot as logits) = log(1 + 3/e).
    one_hot = F.one_hot(torch.tensor([0]), 4).float()
    assert (
        abs(F.cross_entropy(one_hot, torch.tensor([0])).item() - floor) < 1e-6
    )


if __name__ == "__main__":
    _check()
