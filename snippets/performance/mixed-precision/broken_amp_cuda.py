"""The Broken AMP drill on a GPU in float16: clipping before unscale_ stalls training; it makes no NaNs."""

# --8<-- [start:demo]
import copy
import math

import torch
from torch import nn

x = torch.randn(512, 16, device="cuda")
y = x @ torch.randn(16, 8, device="cuda")
initial = nn.Linear(16, 8).cuda()


def train(unscale_before_clip):
    model = copy.deepcopy(initial)  # both runs start from the same weights
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scaler = torch.amp.GradScaler("cuda")
    start = nn.functional.mse_loss(model(x), y).item()
    norms = []
    for _ in range(50):
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        if unscale_before_clip:
            scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        norms.append(norm.item())
        scaler.step(optimizer)
        scaler.update()
    end = nn.functional.mse_loss(model(x), y).item()
    finite = all(torch.isfinite(p).all() for p in model.parameters())
    top = max(n for n in norms if math.isfinite(n))
    return end / start, top, finite, scaler.get_scale()


buggy, fixed = train(unscale_before_clip=False), train(unscale_before_clip=True)
print("buggy learned:", buggy[0] < 0.1, "| weights finite:", buggy[2])
# > buggy learned: False | weights finite: True
print("fixed learned:", fixed[0] < 0.1, "| weights finite:", fixed[2])
# > fixed learned: True | weights finite: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    buggy_ratio, buggy_norm, buggy_finite, buggy_scale = buggy
    fixed_ratio, fixed_norm, fixed_finite, fixed_scale = fixed
    assert buggy_finite and fixed_finite  # no NaN weights either way: GradScaler skips non-finite steps
    assert buggy_ratio > 0.99  # the buggy loss barely moved
    assert fixed_ratio < 1e-2  # the fixed loop fit the target
    # The buggy loop logged the norm of grads multiplied by the scale (2**16, or less after a backoff).
    assert buggy_norm > 1000 * fixed_norm
    assert 1.0 <= buggy_scale <= 2.0**16 and 1.0 <= fixed_scale <= 2.0**16


if __name__ == "__main__":
    _check()
