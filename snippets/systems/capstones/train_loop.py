"""A training loop with AMP, gradient accumulation, clipping and checkpoint/resume that is bit-identical."""

# --8<-- [start:demo]
import copy
import os
import tempfile

import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
ACCUM = 2  # micro-batches per optimizer step


def make_training():
    model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 1))
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    fp16 = amp_dtype == torch.float16
    scaler = torch.amp.GradScaler(device.type, enabled=fp16)  # fp16 only
    return model, optimizer, scaler


def train(model, optimizer, scaler, batches, start, stop):
    model.train()
    for i in range(start, stop):
        x, y = batches[i]
        # forward and loss only
        with torch.autocast(device.type, dtype=amp_dtype):
            # average over the accumulation window
            loss = nn.functional.mse_loss(model(x), y) / ACCUM
        scaler.scale(loss).backward()
        if (i + 1) % ACCUM == 0:
            scaler.unscale_(optimizer)  # true gradients before clipping
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)


def save(path, model, optimizer, scaler, step):
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scaler": scaler.state_dict(),
    }
    torch.save({**state, "step": step}, path + ".tmp")
    # atomic: a crash mid-save never leaves a torn checkpoint
    os.replace(path + ".tmp", path)


w = torch.randn(16, 1, device=device)
# 48 micro-batches of 8
batches = [(x, x @ w) for x in torch.randn(48, 8, 16, device=device)]

reference = make_training()
initial = copy.deepcopy(reference[0].state_dict())
train(*reference, batches, 0, 48)  # the uninterrupted run

model, optimizer, scaler = make_training()
model.load_state_dict(initial)
# stop at an optimizer-step boundary
train(model, optimizer, scaler, batches, 0, 24)
path = os.path.join(tempfile.mkdtemp(), "last.pt")
save(path, model, optimizer, scaler, step=24)
del model, optimizer, scaler  # the "crash"

model, optimizer, scaler = make_training()  # a fresh process would start here
# weights_only=True by default: tensors and plain types
checkpoint = torch.load(path, map_location=device)
model.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scaler.load_state_dict(checkpoint["scaler"])
train(model, optimizer, scaler, batches, checkpoint["step"], 48)

print(
    all(
        torch.equal(a, b)
        for a, b in zip(
            reference[0].parameters(), model.parameters(), strict=True
        )
    )
)
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The run learned: the loss dropped well below its starting value.
    fresh = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 1)).to(
        device
    )
    fresh.load_state_dict(initial)
    x, y = batches[0]
    with torch.no_grad():
        start = nn.functional.mse_loss(fresh(x), y).item()
        end = nn.functional.mse_loss(model(x), y).item()
    assert (
        end < start / 2
    )  # fp16 on a GPU skips a few early steps while the scale backs off
    # Resuming without the optimizer state is not the same run.
    m2, o2, s2 = make_training()
    m2.load_state_dict(checkpoint["model"])
    train(m2, o2, s2, batches, 24, 48)
    assert not all(
        torch.equal(a, b)
        for a, b in zip(reference[0].parameters(), m2.parameters(), strict=True)
    )
    # On CPU the loop ran bf16 autocast with the scaler disabled.
    if device.type == "cpu":
        assert amp_dtype == torch.bfloat16 and not scaler.is_enabled()
    assert os.path.exists(path) and not os.path.exists(path + ".tmp")


if __name__ == "__main__":
    _check()
