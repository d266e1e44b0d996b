"""clip_grad_norm_ goes after backward and before step, scales all grads by one global norm, and returns it."""

# --8<-- [start:norm]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 8), 100 * torch.randn(32, 1)  # large targets, large gradients

optimizer.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
before = torch.cat([p.grad.flatten() for p in model.parameters()])  # a copy of every grad
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
after = torch.cat([p.grad.flatten() for p in model.parameters()])
optimizer.step()
print(torch.allclose(total_norm, before.norm()))  # ONE L2 norm over all parameters together
# > True
print(total_norm.item() > 1.0, f"{after.norm():.3f}")  # log total_norm: it is your exploding-gradient alarm
# > True 1.000
# --8<-- [end:norm]

# --8<-- [start:value]
import torch
from torch import nn

p = nn.Parameter(torch.zeros(3))
p.grad = torch.tensor([0.5, -3.0, 10.0])
torch.nn.utils.clip_grad_value_([p], clip_value=1.0)  # clamps each element: the direction changes
print(p.grad)
# > tensor([ 0.5000, -1.0000,  1.0000])
# --8<-- [end:value]

# --8<-- [start:amp]
import torch
from torch import nn

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
model = nn.Linear(8, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)
x, y = torch.randn(32, 8, device=device), torch.randn(32, 1, device=device)

optimizer.zero_grad()
with torch.autocast(device_type=device.type):
    loss = nn.functional.mse_loss(model(x), y)
scaler.scale(loss).backward()  # the grads are now multiplied by scaler.get_scale()
scaler.unscale_(optimizer)  # divide them back, in place...
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # ...so the clip sees the true norm
scaler.step(optimizer)  # skips the step if any grad is inf/NaN
scaler.update()
# --8<-- [end:amp]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Norm clipping rescales every grad by the same factor: the direction is kept.
    assert total_norm > 1.0
    torch.testing.assert_close(after, before * (1.0 / (total_norm + 1e-6)))
    torch.testing.assert_close(after.norm(), torch.tensor(1.0))
    # Below the threshold nothing changes (and the norm is still returned).
    q = nn.Parameter(torch.zeros(2))
    q.grad = torch.tensor([0.3, 0.4])
    returned = torch.nn.utils.clip_grad_norm_([q], max_norm=1.0)
    torch.testing.assert_close(returned, torch.tensor(0.5))
    torch.testing.assert_close(q.grad, torch.tensor([0.3, 0.4]), rtol=0, atol=0)
    # Value clipping clamps elementwise, so the direction changes; it returns nothing.
    assert p.grad.tolist() == [0.5, -1.0, 1.0]
    assert torch.nn.utils.clip_grad_value_([p], clip_value=1.0) is None
    # A non-finite gradient: the returned norm is inf, or an error with error_if_nonfinite=True.
    bad = nn.Parameter(torch.zeros(2))
    bad.grad = torch.tensor([float("inf"), 1.0])
    assert torch.isinf(torch.nn.utils.clip_grad_norm_([bad], max_norm=1.0))
    bad.grad = torch.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_([bad], max_norm=1.0, error_if_nonfinite=True)

    # With a GradScaler, clipping before unscale_ measures scale x the true norm -- so it clips far too hard.
    def measured_norm(unscale_first: bool) -> float:
        torch.manual_seed(0)
        net = nn.Linear(8, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        gs = torch.amp.GradScaler("cpu", init_scale=2.0**16)
        gs.scale(nn.functional.mse_loss(net(torch.randn(32, 8)), torch.randn(32, 1))).backward()
        if unscale_first:
            gs.unscale_(opt)
        return torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0).item()

    assert abs(measured_norm(unscale_first=False) / measured_norm(unscale_first=True) - 2.0**16) < 1.0
    # The shown AMP step. With finite grads (always with CPU bf16 autocast) the clip ran on unscaled grads,
    # so their norm is now <= 1, and the scale is kept. With float16 on a GPU the very first scaled step may
    # overflow instead: GradScaler then skips it and halves the scale, as the next check shows.
    scale, norm_now = scaler.get_scale(), torch.cat([g.grad.flatten() for g in model.parameters()]).norm().item()
    assert (scale == 2.0**16 and norm_now <= 1.0 + 1e-5) or (scale == 2.0**15 and device.type != "cpu")
    # GradScaler catches non-finite grads: the step is skipped (weights unchanged) and the scale halves.
    net = nn.Linear(2, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    gs = torch.amp.GradScaler("cpu", init_scale=2.0**16)
    gs.scale(net(torch.ones(1, 2)).sum()).backward()
    net.weight.grad[0, 0] = float("inf")
    gs.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    weight_before = net.weight.detach().clone()
    gs.step(opt)
    gs.update()
    assert torch.equal(net.weight, weight_before) and gs.get_scale() == 2.0**15
    assert torch.isfinite(net.weight).all()


if __name__ == "__main__":
    _check()
