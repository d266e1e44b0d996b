"""Lab: train, checkpoint, stop, resume in fresh objects, and prove the resumed run is bit-identical."""

# --8<-- [start:lab]
import os
import tempfile
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

EPOCHS, STOP_AFTER = 4, 2
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))


def build(seed):
    """All a fresh process creates before it knows about any checkpoint."""
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 1)
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimizer, T_max=EPOCHS * 4
    )
    generator = torch.Generator().manual_seed(seed)
    loader = DataLoader(data, batch_size=16, shuffle=True, generator=generator)
    return model, optimizer, scheduler, loader, generator


def train_epoch(model, optimizer, scheduler, loader):
    model.train()
    losses = []
    # shuffle order from the loader's generator, dropout masks from torch's RNG
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def save(path, epoch, model, optimizer, scheduler, generator):
    state = {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "loader_rng": generator.get_state(),
    }
    torch.save(state, path.with_suffix(".tmp"))
    # atomic: a crash mid-save never leaves half a checkpoint
    os.replace(path.with_suffix(".tmp"), path)


def resume(path):
    # a new process, any seed
    model, optimizer, scheduler, loader, generator = build(seed=123)
    # weights_only=True: tensors, numbers, dicts and lists only
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    generator.set_state(state["loader_rng"])
    return state["epoch"] + 1, model, optimizer, scheduler, loader


# The reference: one uninterrupted run.
model, optimizer, scheduler, loader, _ = build(seed=0)
reference = [
    train_epoch(model, optimizer, scheduler, loader) for _ in range(EPOCHS)
]
reference_weights = [p.detach().clone() for p in model.parameters()]

# The same run, stopped after STOP_AFTER epochs and resumed from the checkpoint
# file.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "last.pt"
    model, optimizer, scheduler, loader, generator = build(seed=0)
    history = []
    for epoch in range(STOP_AFTER):
        history.append(train_epoch(model, optimizer, scheduler, loader))
        save(path, epoch, model, optimizer, scheduler, generator)
    # "stop": only the file survives
    del model, optimizer, scheduler, loader, generator

    start, model, optimizer, scheduler, loader = resume(path)
    for epoch in range(start, EPOCHS):
        history.append(train_epoch(model, optimizer, scheduler, loader))
        save(path, epoch, model, optimizer, scheduler, loader.generator)

# every loss of every step, compared as floats: bit for bit
print(history == reference)
# > True
print(
    all(
        torch.equal(p, q)
        for p, q in zip(model.parameters(), reference_weights, strict=True)
    )
)
# > True
# --8<-- [end:lab]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import copy

    # The resumed run really resumed: 4 epochs of 4 steps, the second half after the reload, and the scheduler
    # and optimizer continued from step 8 (not from 0).
    assert len(history) == EPOCHS and all(len(losses) == 4 for losses in history)
    assert scheduler.last_epoch == EPOCHS * 4 and optimizer.state_dict()["state"][0]["step"].item() == 16.0
    assert history[STOP_AFTER - 1][-1] != history[STOP_AFTER][0]  # training went on (the loss moved)
    assert not path.exists() and not path.with_suffix(".tmp").exists()  # the temporary directory is gone

    # Each piece of the checkpoint matters: drop one at a time and the second half no longer matches.
    net, opt, sched, ldr, gen = build(seed=0)
    for _ in range(STOP_AFTER):
        train_epoch(net, opt, sched, ldr)
    full = {
        "model": copy.deepcopy(net.state_dict()),
        "optimizer": copy.deepcopy(opt.state_dict()),
        "scheduler": copy.deepcopy(sched.state_dict()),
        "torch_rng": torch.get_rng_state(),
        "loader_rng": gen.get_state(),
    }

    assert full["optimizer"]["state"][0]["step"].item() == 8.0 and full["scheduler"]["last_epoch"] == 8

    def second_half(skip: str) -> list[list[float]]:
        net2, opt2, sched2, ldr2, gen2 = build(seed=123)
        net2.load_state_dict(full["model"])
        if skip != "optimizer":
            opt2.load_state_dict(copy.deepcopy(full["optimizer"]))
        if skip != "scheduler":
            sched2.load_state_dict(full["scheduler"])
        if skip != "torch_rng":
            torch.set_rng_state(full["torch_rng"])
        if skip != "loader_rng":
            gen2.set_state(full["loader_rng"])
        return [train_epoch(net2, opt2, sched2, ldr2) for _ in range(EPOCHS - STOP_AFTER)]

    assert second_half(skip="nothing") == reference[STOP_AFTER:]
    for piece in ("optimizer", "scheduler", "torch_rng", "loader_rng"):
        assert second_half(skip=piece) != reference[STOP_AFTER:], piece


if __name__ == "__main__":
    _check()
