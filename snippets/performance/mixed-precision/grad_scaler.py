"""GradScaler: why fp16 gradients need loss scaling, how the scale adapts, and why bf16 doesn't need it."""

# --8<-- [start:underflow]
import torch

grad = torch.tensor(1e-8)  # a small but real gradient
# fp16 flushes it to zero; bf16 has float32's exponent range
print(grad.half(), grad.bfloat16())
# > tensor(0., dtype=torch.float16) tensor(1.0012e-08, dtype=torch.bfloat16)
# what GradScaler's default scale, 2**16, does to it
scaled = (grad * 65536).half()
# representable in fp16, and unscaled in float32 afterwards
print(scaled, scaled.float() / 65536)
# > tensor(0.0007, dtype=torch.float16) tensor(9.9972e-09)
# --8<-- [end:underflow]

# --8<-- [start:dynamic]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
model = nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# the default interval is 2000 steps
scaler = torch.amp.GradScaler(device.type, growth_interval=3)

for overflow in [True, False, False, False]:
    optimizer.zero_grad()
    scaler.scale(model(torch.ones(1, 2, device=device)).sum()).backward()
    if overflow:
        # what an fp16 backward that overflowed leaves behind
        model.weight.grad[0, 0] = float("inf")
    before = model.weight.detach().clone()
    # unscales, checks for inf/NaN, and skips the step if it finds one
    scaler.step(optimizer)
    # halves the scale after a skip, doubles it after 3 clean steps
    scaler.update()
    # (step skipped?, new scale)
    print(torch.equal(before, model.weight), scaler.get_scale())
# > True 32768.0
# > False 32768.0
# > False 32768.0
# > False 65536.0
# --8<-- [end:dynamic]

dynamic_model, dynamic_scaler = model, scaler  # kept for the checks

# --8<-- [start:bf16]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
amp_dtype = torch.bfloat16  # or torch.float16 on a GPU without bf16
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
# one code path for both
scaler = torch.amp.GradScaler(device.type, enabled=amp_dtype == torch.float16)

with torch.autocast(device_type=device.type, dtype=amp_dtype):
    loss = model(torch.randn(8, 4, device=device)).square().mean()
scaler.scale(loss).backward()  # disabled: scale() returns the loss itself
scaler.step(optimizer)  # disabled: a plain optimizer.step()
scaler.update()
print(scaler.is_enabled(), scaler.get_scale())
# > False 1.0
# --8<-- [end:bf16]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # fp16's smallest subnormal is about 6e-8 and its smallest normal 6.1e-5; bf16 reaches float32's 1.2e-38.
    assert torch.tensor(5.97e-8).half() > 0 and torch.tensor(2.9e-8).half() == 0
    assert torch.finfo(torch.float16).tiny == 2.0**-14
    assert torch.finfo(torch.bfloat16).tiny == torch.finfo(torch.float32).tiny
    assert grad.half() == 0 and grad.bfloat16() > 0
    torch.testing.assert_close(scaled.float() / 65536, grad, rtol=1e-3, atol=0)

    # Defaults of GradScaler.
    default = torch.amp.GradScaler("cpu")
    assert default.get_scale() == 2.0**16
    assert default.get_growth_factor() == 2.0 and default.get_backoff_factor() == 0.5
    assert default.get_growth_interval() == 2000
    # The skipped step left the weights finite; after three clean steps the scale doubled back.
    assert torch.isfinite(dynamic_model.weight).all()
    assert dynamic_scaler.get_scale() == 65536.0

    # A disabled scaler is a pass-through: scale() returns its argument, and the step really happened.
    probe = torch.tensor(2.0, requires_grad=True)
    off = torch.amp.GradScaler("cpu", enabled=False)
    assert off.scale(probe) is probe and not off.is_enabled()
    assert off.get_scale() == 1.0
    p = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=0.5)
    off.scale((p * 2).sum()).backward()
    off.step(opt)
    off.update()
    assert p.item() == 0.0

    # On a machine without CUDA, GradScaler("cuda") disables itself with a UserWarning.
    import pytest

    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            assert not torch.amp.GradScaler("cuda").is_enabled()


if __name__ == "__main__":
    _check()
