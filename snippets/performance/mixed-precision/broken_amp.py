"""Spot the bug: clipping before scaler.unscale_ clips the scaled grads, so every update is ~65536x too small."""

# --8<-- [start:buggy]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(512, 16, device=device)
# a linear target the model can fit exactly
y = x @ torch.randn(16, 8, device=device)
model = nn.Linear(16, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scaler = torch.amp.GradScaler(device.type)

start = nn.functional.mse_loss(model(x), y).item()
for _ in range(50):
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type):
        loss = nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
end = nn.functional.mse_loss(model(x), y).item()
print("learned:", end < start / 10)
# > learned: False
# --8<-- [end:buggy]

buggy = {"model": model, "scaler": scaler, "start": start, "end": end, "norm": grad_norm.item(), "x": x, "y": y}

# --8<-- [start:fixed]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(512, 16, device=device)
# a linear target the model can fit exactly
y = x @ torch.randn(16, 8, device=device)
model = nn.Linear(16, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scaler = torch.amp.GradScaler(device.type)

start = nn.functional.mse_loss(model(x), y).item()
for _ in range(50):
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type):
        loss = nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # the grads are now their true size...
    # ...so the clip sees the true norm
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    # knows the grads are unscaled, and doesn't divide them again
    scaler.step(optimizer)
    scaler.update()
end = nn.functional.mse_loss(model(x), y).item()
print("learned:", end < start / 10)
# > learned: True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import copy

    # The true symptom: no NaN, no inf, no skipped step -- the loss just barely moves.
    assert all(torch.isfinite(p).all() for p in buggy["model"].parameters())
    assert buggy["end"] < buggy["start"] and buggy["end"] > 0.99 * buggy["start"]  # it moved, by under 1 %
    assert end < 1e-3 * start  # the fixed loop fits the target
    # The logged norm is the tell: the buggy loop logs a norm thousands of times larger than the fixed one.
    assert buggy["norm"] > 1000 * grad_norm.item()

    # Exactly why, on CPU with a bf16 autocast (no overflow, so the scale stays at 2**16): the clip measures
    # scale x the true norm, clips to 1.0, and step() then divides by the scale once more.
    torch.manual_seed(0)
    xs = torch.randn(512, 16)
    ys = xs @ torch.randn(16, 8)
    start_model = nn.Linear(16, 8)

    def one_step(unscale_first: bool) -> tuple[float, float]:
        net = copy.deepcopy(start_model)
        opt = torch.optim.SGD(net.parameters(), lr=0.5)
        gs = torch.amp.GradScaler("cpu")
        with torch.autocast("cpu"):
            loss = nn.functional.mse_loss(net(xs), ys)
        gs.scale(loss).backward()
        if unscale_first:
            gs.unscale_(opt)
        measured = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0).item()
        before = torch.cat([p.detach().flatten() for p in net.parameters()])
        gs.step(opt)
        gs.update()
        assert gs.get_scale() == 2.0**16  # nothing overflowed, nothing was skipped
        moved = (torch.cat([p.detach().flatten() for p in net.parameters()]) - before).norm().item()
        return measured, moved

    true_norm, good_update = one_step(unscale_first=True)
    scaled_norm, tiny_update = one_step(unscale_first=False)
    assert abs(scaled_norm / true_norm - 2.0**16) < 1.0  # the clip saw 65536 x the true norm
    assert true_norm > 1.0  # so the right clip is active too...
    assert abs(good_update - 0.5) < 1e-4  # ...and the right update has norm lr * max_norm = 0.5
    assert abs(tiny_update * 2.0**16 - 0.5) < 1e-3  # the buggy update is 65536x smaller


if __name__ == "__main__":
    _check()
