"""FSDP2 done right: shard each block, then the root, then build the optimizer; 2 ranks match one process."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.launcher.api import LaunchConfig, elastic_launch

X = torch.arange(64.0).reshape(16, 4).sin()
Y = torch.arange(16.0).reshape(16, 1).cos()


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 8), nn.Linear(8, 8)])
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


def train(model: nn.Module, optimizer: torch.optim.Optimizer,
          x: torch.Tensor, y: torch.Tensor) -> None:
    for _ in range(3):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)  # every rank builds the same initial weights
    model = Net()
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)  # shard submodules first
    # then the root, which takes what is left: the head
    fully_shard(model, mesh=mesh)
    # AFTER sharding: the DTensor parameters
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    # each rank trains on its half of the batch
    train(model, optimizer, X[rank::2], Y[rank::2])
    weight = model.layers[0].weight
    local, whole = tuple(weight.to_local().shape), tuple(weight.shape)
    shard = f"{type(weight).__name__} {local} of {whole}"
    adam = [tuple(state["exp_avg"].to_local().shape)
            for state in optimizer.state.values()]
    # all-gather
    full = {name: p.full_tensor().detach()
            for name, p in model.named_parameters()}
    dist.destroy_process_group()
    return {"shard": shard, "adam": adam, "full": full}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    print("rank 0 stores layers.0.weight as", ranks[0]["shard"])
    print("its Adam state shapes:", ranks[0]["adam"][:2])
    torch.manual_seed(0)
    # the same start, trained in one process on the whole batch
    reference = Net()
    untrained = {name: p.detach().clone()
                 for name, p in reference.named_parameters()}
    train(reference, torch.optim.Adam(reference.parameters(), lr=0.05), X, Y)
    trained = ranks[0]["full"]
    print("weights changed:", any(not torch.equal(trained[name], w)
                                  for name, w in untrained.items()))
    same = all(torch.allclose(trained[name], p, atol=1e-6)
               for name, p in reference.named_parameters())
    print("matches one process:", same)
# > rank 0 stores layers.0.weight as DTensor (4, 4) of (8, 4)
# > its Adam state shapes: [(4, 4), (4,)]
# > weights changed: True
# > matches one process: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Both ranks all-gathered the same full model, and it matches the single-process run to float rounding.
    assert ranks[0]["full"].keys() == ranks[1]["full"].keys() == dict(reference.named_parameters()).keys()
    for name, param in reference.named_parameters():
        assert torch.equal(ranks[0]["full"][name], ranks[1]["full"][name])
        torch.testing.assert_close(ranks[0]["full"][name], param.detach(), atol=1e-6, rtol=0)
    # Each rank stores half of every parameter (dim 0 split in two), and Adam's state for it has the shape of
    # that shard. The head has a single row: rank 0 holds it and rank 1 an empty (0, 8) shard, and FSDP2
    # pads uneven dims internally, so it still trains correctly (the comparison above covers the head).
    assert ranks[0]["shard"] == ranks[1]["shard"] == "DTensor (4, 4) of (8, 4)"
    assert ranks[0]["adam"] == [(4, 4), (4,), (4, 8), (4,), (1, 8), (1,)]
    assert ranks[1]["adam"] == [(4, 4), (4,), (4, 8), (4,), (0, 8), (0,)]


if __name__ == "__main__":
    _check()
