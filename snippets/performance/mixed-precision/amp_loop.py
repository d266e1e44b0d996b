"""The AMP training step in its one correct order, and what each wrong order does."""

# --8<-- [start:demo]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(256, 16, device=device)
y = x @ torch.randn(16, 8, device=device)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
# one scaler for the whole run: its scale is learned state
scaler = torch.amp.GradScaler(device.type)

start = nn.functional.mse_loss(model(x), y).item()
for _ in range(60):
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type):  # forward and loss only
        loss = nn.functional.mse_loss(model(x), y)
    # 1. backward on loss * scale, outside autocast
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # 2. divide the grads by the scale, in place
    # 3. clip the true grads
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)  # 4. step, unless a grad is inf/NaN
    # 5. shrink the scale after a skip, grow it after a clean run
    scaler.update()
end = nn.functional.mse_loss(model(x), y).item()
print("loss fell below a tenth:", end < start / 10)
# > loss fell below a tenth: True
# --8<-- [end:demo]

demo_model, demo_scaler = model, scaler  # kept for the checks

# --8<-- [start:wrong_orders]
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(model(torch.randn(8, 4)).sum()).backward()
try:
    scaler.update()  # update before step: nothing to learn from yet
except AssertionError as err:
    print(err)
# > No inf checks were recorded prior to update.
scaler.unscale_(optimizer)
try:
    # a second unscale_, e.g. inside a clipping helper
    scaler.unscale_(optimizer)
except RuntimeError as err:
    print(str(err).replace(" since", "\n  since"))
# > unscale_() has already been called on this optimizer
# >   since the last update().
scaler.step(optimizer)
try:
    scaler.step(optimizer)  # next iteration, but update() was forgotten
except RuntimeError as err:
    print(err)
# > step() has already been called since the last update().
scaler.update()
# --8<-- [end:wrong_orders]

# --8<-- [start:bypass]
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
before = model.weight.detach().clone()
scaler.scale(model(torch.randn(8, 4)).sum()).backward()
optimizer.step()  # bypasses the scaler: the grads are still 65536x too large
right_step = 0.1 * model.weight.grad / 65536
print(f"{(model.weight - before).norm() / right_step.norm():.0f}")
# > 65536
try:
    scaler.update()  # the loop's next line: no unscale_, so no inf check
except AssertionError as err:
    print(err)
# > No inf checks were recorded prior to update.
# --8<-- [end:bypass]

bypass_model = model  # kept for the checks

# --8<-- [start:bypass_after_unscale]
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(model(torch.randn(8, 4)).sum()).backward()
model.weight.grad[0, 0] = float("inf")  # an overflow in the fp16 backward
scaler.unscale_(optimizer)  # true grads, and the inf is recorded...
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
optimizer.step()  # ...but nothing skips this step
scaler.update()  # runs, and halves the scale
print(model.weight.isnan().any().item(), scaler.get_scale())
# > True 32768.0
# --8<-- [end:bypass_after_unscale]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import copy

    import pytest

    # The demo learned, its weights are finite, and the loop ran in float32 master weights.
    assert all(torch.isfinite(p).all() and p.dtype == torch.float32 for p in demo_model.parameters())
    assert demo_scaler.get_scale() > 0

    # Bypassing scaler.step also bypasses the inf check: with Adam (nearly scale-invariant) the only visible
    # sign is NaN weights after the first overflow.
    net = nn.Linear(2, 1)
    adam = torch.optim.Adam(net.parameters(), lr=1e-3)
    gs = torch.amp.GradScaler("cpu")
    gs.scale(net(torch.ones(1, 2)).sum()).backward()
    net.weight.grad[0, 0] = float("inf")
    adam.step()
    assert torch.isnan(net.weight).any()

    # optimizer.step() in place of scaler.step(optimizer), two cases. Without unscale_, the step is 65536x
    # too large and the loop's update() raises; after unscale_, update() runs and backs off, but the
    # overflowing step reached the weights. scaler.step would have skipped it and kept the weights.
    assert torch.isfinite(bypass_model.weight).all()
    assert model.weight.isnan().any() and scaler.get_scale() == 32768.0
    net = nn.Linear(4, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    gs = torch.amp.GradScaler("cpu")
    kept = net.weight.detach().clone()
    gs.scale(net(torch.randn(8, 4)).sum()).backward()
    net.weight.grad[0, 0] = float("inf")
    gs.unscale_(sgd)
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    gs.step(sgd)
    gs.update()
    assert torch.equal(net.weight, kept) and gs.get_scale() == 32768.0

    # Forgetting update() also fails loudly when the next iteration calls unscale_.
    net = nn.Linear(2, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    gs = torch.amp.GradScaler("cpu")
    for iteration in range(2):
        sgd.zero_grad()
        gs.scale(net(torch.ones(1, 2)).sum()).backward()
        if iteration == 1:
            with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
                gs.unscale_(sgd)
        else:
            gs.unscale_(sgd)
            gs.step(sgd)

    # A skipped first step makes the scheduler think step() never ran: a harmless UserWarning.
    net = nn.Linear(2, 1)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(sgd, step_size=1)
    gs = torch.amp.GradScaler("cpu")
    gs.scale(net(torch.ones(1, 2)).sum()).backward()
    net.weight.grad[0, 0] = float("inf")
    gs.step(sgd)
    gs.update()
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`"):
        sched.step()

    # The backward may sit inside autocast too: it reuses the forward's dtypes, so the grads are identical.
    torch.manual_seed(0)
    base, xb = nn.Linear(8, 8), torch.randn(4, 8)
    inside, outside = copy.deepcopy(base), copy.deepcopy(base)
    with torch.autocast("cpu"):
        inside(xb).float().square().mean().backward()
        out = outside(xb).float().square().mean()
    out.backward()
    torch.testing.assert_close(inside.weight.grad, outside.weight.grad, rtol=0, atol=0)

    # A GradScaler created inside the loop never adapts: with a real fp16 overflow at the default scale,
    # every step is skipped and the weights never change; one scaler for the run backs off and trains.
    torch.manual_seed(0)
    xs = torch.randn(512, 16)
    ys = 40 * (xs @ torch.randn(16, 8))
    start = nn.Linear(16, 8)

    def run(new_scaler_each_step: bool) -> tuple[bool, float]:
        net = copy.deepcopy(start)
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        gs = torch.amp.GradScaler("cpu")
        skipped = 0
        for _ in range(8):
            if new_scaler_each_step:
                gs = torch.amp.GradScaler("cpu")
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = nn.functional.mse_loss(net(xs), ys)
            gs.scale(loss).backward()
            scale = gs.get_scale()
            gs.step(opt)
            gs.update()
            skipped += gs.get_scale() < scale
        return torch.equal(net.weight, start.weight), skipped

    unchanged, skipped = run(new_scaler_each_step=True)
    assert unchanged and skipped == 8
    unchanged, skipped = run(new_scaler_each_step=False)
    assert not unchanged and 0 < skipped < 8


if __name__ == "__main__":
    _check()
