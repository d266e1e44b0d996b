"""SFT loss under gradient accumulation: mean-per-micro-batch favours short answers; sum / total tokens is exact."""

# --8<-- [start:buggy]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 5)  # stands in for an LM: one logit row per token
micro_batches = []
for n_targets in (2, 11):  # target-token counts differ, as in real SFT
    x, labels = torch.randn(12, 8), torch.randint(0, 5, (12,))
    labels[n_targets:] = -100  # prompt and padding carry no loss
    micro_batches.append((x, labels))

accum_steps = len(micro_batches)
model.zero_grad()
for x, labels in micro_batches:
    (F.cross_entropy(model(x), labels) / accum_steps).backward()
# --8<-- [end:buggy]
_buggy = [p.grad.clone() for p in model.parameters()]

# --8<-- [start:fixed]
# count the targets of the whole optimizer step first
total = sum((labels != -100).sum() for _, labels in micro_batches)
model.zero_grad()
for x, labels in micro_batches:
    loss = F.cross_entropy(model(x), labels, reduction="sum") / total
    loss.backward()
# --8<-- [end:fixed]
_fixed = [p.grad.clone() for p in model.parameters()]
_drill_model = model

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 5)
x, labels = torch.randn(24, 8), torch.randint(0, 5, (24,))
labels[2:12] = -100  # micro-batch 1: 2 target tokens
labels[23:] = -100  # micro-batch 2: 11 target tokens
micro = list(zip(x.split(12), labels.split(12), strict=True))


def accumulated_grad(loss_fn):
    model.zero_grad()
    for xb, yb in micro:
        loss_fn(xb, yb).backward()
    return model.weight.grad.clone()


total = (labels != -100).sum()
naive = accumulated_grad(lambda xb, yb: F.cross_entropy(model(xb), yb) / 2)
summed = accumulated_grad(
    lambda xb, yb: F.cross_entropy(model(xb), yb, reduction="sum") / total)
full = torch.autograd.grad(F.cross_entropy(model(x), labels),
                           model.weight)[0]  # one big batch, token mean
print(torch.allclose(summed, full), torch.allclose(naive, full))
# > True False
empty = torch.full((12,), -100)  # a micro-batch with no target tokens
print(F.cross_entropy(model(x[:12]), empty))
# > tensor(nan, grad_fn=<NllLossBackward0>)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The drill's code: the fix equals the full-batch token mean, the bug doesn't (2 vs 11 tokens: the short
    # micro-batch's tokens weigh 5.5x more).
    xs = torch.cat([xb for xb, _ in micro_batches])
    ys = torch.cat([yb for _, yb in micro_batches])
    drill_model = _drill_model
    ref = torch.autograd.grad(F.cross_entropy(drill_model(xs), ys), drill_model.weight)[0]
    torch.testing.assert_close(_fixed[0], ref)
    assert not torch.allclose(_buggy[0], ref, atol=1e-3)
    # The demo: same story, plus the empty micro-batch.
    torch.testing.assert_close(summed, full)
    assert not torch.allclose(naive, full, atol=1e-3)
    assert total.item() == 13
    assert F.cross_entropy(model(x[:12]), empty).isnan()
    # The sum form is safe for an empty micro-batch: 0, not NaN.
    assert F.cross_entropy(model(x[:12]), empty, reduction="sum").item() == 0.0


if __name__ == "__main__":
    _check()
