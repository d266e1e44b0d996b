"""Early stopping: save the best checkpoint on improvement, stop after `patience` bad epochs, restore the best."""

# --8<-- [start:demo]
import tempfile
from pathlib import Path

import torch
from torch import nn


class EarlyStopping:
    """Stop after `patience` epochs without improvement; save the best."""

    def __init__(
        self, path: Path, patience: int = 2, min_delta: float = 0.0
    ) -> None:
        self.path, self.patience, self.min_delta = path, patience, min_delta
        self.best, self.bad_epochs = float("inf"), 0

    def step(
        self,
        val_loss: float,
        epoch: int,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
    ) -> bool:
        if val_loss < self.best - self.min_delta:
            self.best, self.bad_epochs = val_loss, 0
            state = {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
            }
            # a copy on disk
            torch.save(
                {"epoch": epoch, "val_loss": val_loss, **state}, self.path
            )
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience


model = nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
x, y = torch.randn(64, 4), torch.randn(64, 1)
# scripted, so the run is reproducible
val_curve = [0.90, 0.70, 0.62, 0.64, 0.63, 0.61, 0.66]

# never write checkpoints next to your code by accident
with tempfile.TemporaryDirectory() as tmp:
    stopper = EarlyStopping(Path(tmp) / "best.pt", patience=2)
    for epoch, val_loss in enumerate(val_curve):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()  # stands in for a training epoch
        if stopper.step(val_loss, epoch, model, optimizer):
            break
    best = torch.load(stopper.path, weights_only=True)
model.load_state_dict(best["model"])
optimizer.load_state_dict(best["optimizer"])
print(f"stopped after epoch {epoch}, restored epoch {best['epoch']}", end=" ")
print(f"(val loss {best['val_loss']})")
# > stopped after epoch 4, restored epoch 2 (val loss 0.62)
# --8<-- [end:demo]

# --8<-- [start:alias_trap]
import copy

import torch
from torch import nn

model = nn.Linear(2, 1)
best = model.state_dict()  # references to the live tensors, not a copy
with torch.no_grad():
    model.weight.add_(1.0)  # what the next optimizer.step() does
print(torch.equal(best["weight"], model.weight))  # the "best" weights moved too
# > True
# a real snapshot in memory (or torch.save to a file)
best = copy.deepcopy(model.state_dict())
with torch.no_grad():
    model.weight.add_(1.0)
print(torch.equal(best["weight"], model.weight))
# > False
# --8<-- [end:alias_trap]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The temporary directory, and the checkpoint in it, are gone; nothing was written into the repo.
    assert not Path(tmp).exists()
    # The deep copy stayed behind while the live weights moved on.
    torch.testing.assert_close(best["weight"] + 1.0, model.weight.detach())

    # Replay the demo with snapshots: the restored weights are the ones from epoch 2, not the last epoch.
    torch.manual_seed(0)
    net = nn.Linear(4, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    xs, ys = torch.randn(64, 4), torch.randn(64, 1)
    snapshots: list[dict[str, torch.Tensor]] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        stop = EarlyStopping(Path(tmp_dir) / "best.pt", patience=2)
        for ep, val in enumerate(val_curve):
            opt.zero_grad()
            nn.functional.mse_loss(net(xs), ys).backward()
            opt.step()
            snapshots.append(copy.deepcopy(net.state_dict()))
            if stop.step(val, ep, net, opt):
                break
        assert ep == 4 and stop.best == 0.62 and stop.bad_epochs == 2
        restored = torch.load(stop.path, weights_only=True)
    assert restored["epoch"] == 2
    torch.testing.assert_close(restored["model"], snapshots[2], rtol=0, atol=0)
    assert not torch.equal(restored["model"]["weight"], snapshots[4]["weight"])
    # The optimizer state came back too: AdamW's step count is the one from epoch 2 (3 steps).
    opt.load_state_dict(restored["optimizer"])
    assert opt.state_dict()["state"][0]["step"].item() == 3.0
    # min_delta: an improvement smaller than it counts as a bad epoch.
    with tempfile.TemporaryDirectory() as tmp_dir:
        strict = EarlyStopping(Path(tmp_dir) / "best.pt", patience=1, min_delta=0.05)
        assert strict.step(0.70, 0, net, opt) is False and strict.path.exists()
        assert strict.step(0.68, 1, net, opt) is True and strict.best == 0.70


if __name__ == "__main__":
    _check()
