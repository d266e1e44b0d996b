"""Warmup + cosine with SequentialLR, scheduler.step() after optimizer.step(), and ReduceLROnPlateau on a metric."""

# --8<-- [start:schedule]
import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

model = nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)  # the peak lr
warmup_steps, total_steps = 5, 20
warmup = LinearLR(
    optimizer, start_factor=0.1, end_factor=1.0, total_iters=warmup_steps
)
cosine = CosineAnnealingLR(
    optimizer, T_max=total_steps - warmup_steps, eta_min=1e-5
)
scheduler = SequentialLR(
    optimizer, schedulers=[warmup, cosine], milestones=[warmup_steps]
)

lrs = []
# one iteration per batch: this schedule is stepped per batch
for _ in range(total_steps):
    lrs.append(scheduler.get_last_lr()[0])  # the lr this step uses
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    optimizer.step()
    scheduler.step()  # after optimizer.step()
lrs.append(scheduler.get_last_lr()[0])
peak = max(lrs)
print(f"start {lrs[0]:.0e}, peak {peak:.0e} at step {lrs.index(peak)}", end="")
print(f", end {lrs[-1]:.0e}")
# > start 1e-04, peak 1e-03 at step 5, end 1e-05
# --8<-- [end:schedule]

# --8<-- [start:wrong_order]
import warnings

import torch
from torch import nn

optimizer = torch.optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scheduler.step()  # wrong: before the first optimizer.step()
    optimizer.step()
print(str(caught[0].message).split(". ")[0])
# > Detected call of `lr_scheduler.step()` before `optimizer.step()`
# --8<-- [end:wrong_order]

# --8<-- [start:plateau]
import torch
from torch import nn

optimizer = torch.optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
    optimizer, mode="min", factor=0.5, patience=2
)
# one value per epoch, from evaluate()
for val_loss in [1.0, 0.8, 0.8, 0.8, 0.8, 0.7]:
    scheduler.step(val_loss)  # it needs the metric
    print(optimizer.param_groups[0]["lr"], end=" ")
print()
# > 0.1 0.1 0.1 0.1 0.05 0.05
# --8<-- [end:plateau]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math

    import pytest

    # Warmup is linear from 0.1 * peak to the peak over 5 steps.
    for i in range(warmup_steps + 1):
        assert math.isclose(lrs[i], 1e-3 * (0.1 + 0.9 * i / warmup_steps), rel_tol=1e-6)
    # Then cosine from the peak down to eta_min, following the closed form.
    for i in range(warmup_steps, total_steps + 1):
        t = i - warmup_steps
        closed_form = 1e-5 + (1e-3 - 1e-5) * (1 + math.cos(math.pi * t / (total_steps - warmup_steps))) / 2
        assert math.isclose(lrs[i], closed_form, rel_tol=1e-6)
    assert all(a >= b for a, b in zip(lrs[warmup_steps:], lrs[warmup_steps + 1 :], strict=False))

    # The wrong order: the real UserWarning, and the first value of the schedule (0.1) is never used.
    opt = torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`"):
        sched.step()
    assert opt.param_groups[0]["lr"] == 0.05  # the first optimizer.step() will already use the second value
    assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
    # The right order does not warn.
    opt = torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()

    # ReduceLROnPlateau: patience=2 means the third epoch without improvement halves the lr.
    assert optimizer.param_groups[0]["lr"] == 0.05
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'metrics'"):
        scheduler.step()


if __name__ == "__main__":
    _check()
