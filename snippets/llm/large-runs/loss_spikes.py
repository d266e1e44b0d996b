"""Loss-spike triage in code: Adam's update after a quiet period, non-finite clipping, and a rolling MAD detector."""

# --8<-- [start:adam]
import torch


def update_after_quiet(quiet, lr=1.0, beta1=0.9, beta2=0.999):
    w = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.Adam([w], lr=lr, betas=(beta1, beta2))
    for _ in range(100):  # steady gradients of 1
        w.grad = torch.ones(1)
        optimizer.step()
    state = optimizer.state[w]  # then `quiet` steps of zero gradient:
    state["exp_avg"] *= beta1 ** quiet  # m and v only decay (closed form)
    state["exp_avg_sq"] *= beta2 ** quiet
    state["step"] += quiet
    before = w.detach().clone()
    w.grad = torch.ones(1)  # one ordinary gradient after the quiet period
    optimizer.step()
    return (w.detach() - before).abs().item() / lr  # |update| / lr


for quiet in (0, 10, 1000, 10_000):
    print(quiet, round(update_after_quiet(quiet), 3))
# > 0 1.0
# > 10 0.435
# > 1000 0.431
# > 10000 3.155
# --8<-- [end:adam]

# --8<-- [start:detector]
import torch


def spikes(losses, window=50, threshold=6.0):
    """Steps whose loss sits `threshold` MADs above the rolling median."""
    flagged = []
    for t in range(window, len(losses)):
        past = losses[t - window:t]
        median = past.median()
        mad = (past - median).abs().median()
        if losses[t] > median + threshold * 1.4826 * mad:
            flagged.append(t)
    return flagged


torch.manual_seed(0)
steps = torch.arange(600.0)
losses = 3.0 * (1 + steps) ** -0.1 + 0.02 * torch.randn(600)  # a noisy curve
losses[[220, 221, 470]] += torch.tensor([0.8, 0.4, 1.5])  # injected spikes
print(spikes(losses))
# > [220, 221, 470]
# --8<-- [end:detector]

# --8<-- [start:buggy]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(16, 1)
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
grad_norms = []  # what the dashboard plots
for step in range(40):
    x = torch.randn(64, 16)
    y = x[:, :1] + 0.1 * torch.randn(64, 1)
    if step == 30:
        x = x * 100  # a corrupt batch: the spike the log must show
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    grad_norm = torch.nn.utils.get_total_norm([p.grad for p in params])
    grad_norms.append(grad_norm.item())
    optimizer.step()
# --8<-- [end:buggy]
_logged = grad_norms
torch.manual_seed(0)  # the same run again, with the fix
model = nn.Linear(16, 1)
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
grad_norms = []
for step in range(40):
    x = torch.randn(64, 16)
    y = x[:, :1] + 0.1 * torch.randn(64, 1)
    if step == 30:
        x = x * 100
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    # --8<-- [start:fixed]
    loss.backward()
    # clip_grad_norm_ returns the total norm from before it clipped: log it
    grad_norm = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    grad_norms.append(grad_norm.item())
    optimizer.step()
    # --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert abs(update_after_quiet(0) - 1.0) < 1e-3
    # The closed-form shortcut is what real zero-gradient Adam steps do.
    w = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.Adam([w], lr=1.0)
    for step in range(100 + 10 + 1):
        w.grad = torch.zeros(1) if 100 <= step < 110 else torch.ones(1)
        before = w.detach().clone()
        opt.step()
    assert abs((w.detach() - before).abs().item() - update_after_quiet(10)) < 1e-5
    # After a long quiet period the first big gradient moves the weight by about (1 − β1) / √(1 − β2)
    # = 3.16 × lr: v has decayed to ~0 and is rebuilt from this one gradient.
    bound = 0.1 / 0.001**0.5
    assert 3.0 < update_after_quiet(10_000) < bound + 1e-3
    assert abs(update_after_quiet(100_000) - bound) < 0.01
    # clip_grad_norm_ with error_if_nonfinite raises on inf; get_total_norm/clip_grads_with_norm_ exist (2.6+).
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.tensor([1.0, float("inf"), 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    p.grad = torch.tensor([3.0, 4.0, 0.0])
    assert torch.nn.utils.get_total_norm([p.grad]).item() == 5.0
    torch.nn.utils.clip_grads_with_norm_([p], 1.0, torch.tensor(5.0))
    torch.testing.assert_close(p.grad, torch.tensor([0.6, 0.8, 0.0]))
    # The detector flags exactly the injected steps.
    assert spikes(losses) == [220, 221, 470]
    # The drill: measured after clipping, the log never exceeds max_norm. The corrupt batch at step 30 reads
    # 1.0, like each of the first eight (clipped) steps; the pre-clip norm the fix logs is about 20,940, more
    # than 100,000 times the median of the settled steps (about 0.15).
    assert max(_logged) < 1.0 + 1e-5
    assert all(abs(g - 1.0) < 1e-5 for g in _logged[:8] + [_logged[30]])
    assert all(g < 0.9 for g in _logged[8:30])
    assert 20_000 < grad_norms[30] < 22_000
    settled = torch.tensor(grad_norms[10:30] + grad_norms[31:]).median().item()
    assert 0.1 < settled < 0.2 and grad_norms[30] / settled > 100_000
    # Where nothing was clipped the two logs agree: only the place of the measurement moved.
    assert all(abs(a - b) < 1e-6 for a, b in zip(_logged[8:30], grad_norms[8:30], strict=True))
    assert min(grad_norms[:8]) > 1.0

if __name__ == "__main__":
    _check()
