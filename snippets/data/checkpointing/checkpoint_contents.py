"""What a state_dict holds (parameters and persistent buffers), and what a resumable checkpoint adds."""

# --8<-- [start:state_dict]
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
        self.head = nn.Linear(8, 2)
        # rebuilt, never saved
        self.register_buffer("cache", torch.zeros(8), persistent=False)
        # a plain attribute: invisible to the module
        self.temperature = torch.tensor(1.0)


state = Net().state_dict()
print(len(state))
# > 9
# the BatchNorm's entries ("body.1." cut off)
print([name[7:] for name in state if name.startswith("body.1.")])
# > ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
print("cache" in state, "temperature" in state)
# > False False
# --8<-- [end:state_dict]

del torch  # each section imports its own

# --8<-- [start:file_size]
import io

import torch
from torch import nn


def saved_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getbuffer().nbytes


model = nn.Sequential(nn.Linear(256, 256), nn.BatchNorm1d(256))
# the whole module vs its state_dict
print(f"{saved_bytes(model) / saved_bytes(model.state_dict()):.2f}")
# > 1.00
# --8<-- [end:file_size]

del torch

# --8<-- [start:resumable]
import random
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Sequential(
    nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 1)
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
# the real one under float16 autocast on a GPU
scaler = torch.amp.GradScaler("cpu", enabled=False)
# what DataLoader(shuffle=True, generator=...) draws from
loader_generator = torch.Generator().manual_seed(0)

checkpoint = {
    "epoch": 3,  # the last finished epoch (and/or the global step)
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),  # moments and step counts
    "scheduler": scheduler.state_dict(),  # where the lr schedule is
    "scaler": scaler.state_dict(),  # loss scale and growth tracker
    "rng": {
        # + torch.cuda.get_rng_state_all() on GPUs
        "torch": torch.get_rng_state(),
        # the shuffle order of the next epoch
        "loader": loader_generator.get_state(),
        "python": random.getstate(),
    },
    "config": {"lr": 1e-3, "batch_size": 32},  # plain types only: see Q62
}
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "last.pt"
    torch.save(checkpoint, path)
    # weights_only=True, the default: all of the above is allowed
    loaded = torch.load(path)
print(list(loaded))
# > ['epoch', 'model', 'optimizer', 'scheduler', 'scaler', 'rng', 'config']
print(list(loaded["rng"]))
# > ['torch', 'loader', 'python']
# --8<-- [end:resumable]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The state_dict holds parameters and persistent buffers only, detached, sharing storage with the module.
    net = Net()
    sd = net.state_dict()
    names = {name for name, _ in net.named_parameters()} | {name for name, _ in net.named_buffers()}
    assert set(sd) == names - {"cache"} and "temperature" not in sd
    assert sd["body.1.num_batches_tracked"].dtype == torch.int64
    assert all(not t.requires_grad for t in sd.values())
    assert sd["head.weight"].data_ptr() == net.head.weight.data_ptr()
    # The file sizes: the pickled module only adds class metadata (about a kilobyte here), so "a
    # state_dict file is smaller" is not the reason to prefer it.
    assert 0 < saved_bytes(model) - saved_bytes(model.state_dict()) < 4096
    # Everything in the resumable checkpoint round-trips under the default weights_only=True.
    assert loaded["epoch"] == 3 and loaded["config"] == {"lr": 1e-3, "batch_size": 32}
    assert torch.equal(loaded["rng"]["torch"], checkpoint["rng"]["torch"])
    assert torch.equal(loaded["rng"]["loader"], loader_generator.get_state())
    assert loaded["rng"]["python"] == random.getstate()
    assert loaded["scheduler"]["T_max"] == 100 and loaded["scaler"] == {}  # a disabled scaler saves nothing
    assert torch.amp.GradScaler("cpu").state_dict()["scale"] == 65536.0  # an enabled one saves its scale
    assert not path.exists()  # the temporary directory is gone: nothing was written into the repository


if __name__ == "__main__":
    _check()
