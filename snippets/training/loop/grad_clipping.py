"""clip_grad_norm_ goes after backward and before step, scales all grads by one global norm, and returns it."""

# --8<-- [start:norm]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# large targets, large gradients
x, y = torch.randn(32, 8), 100 * torch.randn(32, 1)

optimizer.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
# a copy of every grad
before = torch.cat([p.grad.flatten() for p in model.parameters()])
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
after = torch.cat([p.grad.flatten() for p in model.parameters()])
optimizer.step()
# ONE L2 norm over all parameters together
print(torch.allclose(total_norm, before.norm()))
# > True
# log total_norm: it is your exploding-gradient alarm
print(total_norm.item() > 1.0, f"{after.norm():.3f}")
# > True 1.000
# --8<-- [end:norm]

# --8<-- [start:value]
import torch
from torch import nn

p = nn.Parameter(torch.zeros(3))
p.grad = torch.tensor([0.5, -3.0, 10.0])
# clamps each element: the direction changes
torch.nn.utils.clip_grad_value_([p], clip_value=1.0)
print(p.grad)
# > tensor([ 0.5000, -1.0000,  1.0000])
# --8<-- [end:value]

# --8<-- [start:amp]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
model = nn.Linear(8, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)
x, y = torch.randn(32, 8, device=device), torch.randn(32, 1, device=device)

optimizer.zero_grad()
with torch.autocast(device_type=device.type):
    loss = nn.functional.mse_loss(model(x), y)
# the grads are now multiplied by scaler.get_scale()
scaler.scale(loss).backward()
scaler.unscale_(optimizer)  # divide them back, in place...
# ...so the clip sees the true norm
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
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

    # Drift alarm for the follow-up: the two halves of clip_grad_norm_ exist and compose to it.
    # get_total_norm takes the gradients; clip_grads_with_norm_ takes the parameters and that norm.
    torch.manual_seed(0)
    halves, whole = nn.Linear(4, 3), nn.Linear(4, 3)
    whole.load_state_dict(halves.state_dict())
    xin = 50 * torch.randn(8, 4)
    halves(xin).pow(2).sum().backward()
    whole(xin).pow(2).sum().backward()
    norm = torch.nn.utils.get_total_norm([p.grad for p in halves.parameters()])
    assert torch.nn.utils.clip_grads_with_norm_(halves.parameters(), max_norm=1.0, total_norm=norm) is None
    torch.testing.assert_close(norm, torch.nn.utils.clip_grad_norm_(whole.parameters(), max_norm=1.0))
    assert norm > 1.0
    for a, b in zip(halves.parameters(), whole.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad)

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
