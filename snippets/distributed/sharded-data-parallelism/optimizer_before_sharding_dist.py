"""Spot the bug: an optimizer built before fully_shard holds the old parameters, so training changes nothing."""

# --8<-- [start:buggy]
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
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)  # shard submodules first
    # then the root, which takes what is left: the head
    fully_shard(model, mesh=mesh)
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
# > its Adam state shapes: []
# > weights changed: False
# > matches one process: False
# --8<-- [end:buggy]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The symptom: after 3 steps on 2 ranks every weight is bit-for-bit the untrained one, silently.
    for name, weight in untrained.items():
        assert torch.equal(ranks[0]["full"][name], weight) and torch.equal(ranks[1]["full"][name], weight)

    # The mechanism, in a one-process group: fully_shard swaps every parameter for a new DTensor parameter.
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        torch.manual_seed(0)
        model = Net()
        early = torch.optim.Adam(model.parameters(), lr=0.05)  # built too early
        old = list(model.parameters())
        mesh = init_device_mesh("cpu", (1,))
        for layer in model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        new = list(model.parameters())
        assert all(a is not b for a, b in zip(old, new, strict=True))
        assert all(type(p).__name__ == "DTensor" for p in new) and not any(type(p).__name__ == "DTensor" for p in old)
        assert early.param_groups[0]["params"] == old  # the optimizer still points at the discarded tensors
        nn.functional.mse_loss(model(X), Y).backward()
        assert all(p.grad is None for p in old)  # ...which backward never reaches
        assert all(p.grad is not None for p in new)  # the live parameters do get gradients, unused
        before = [p.full_tensor().clone() for p in new]
        early.step()
        assert all(torch.equal(b, p.full_tensor()) for b, p in zip(before, new, strict=True))
        assert not early.state  # Adam never even created state: it skipped every parameter (grad None)
        # The fix: built after sharding, the optimizer holds exactly the DTensor parameters and does move them.
        late = torch.optim.Adam(model.parameters(), lr=0.05)
        assert all(a is b for a, b in zip(late.param_groups[0]["params"], new, strict=True))
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # works on DTensor grads
        assert type(total_norm).__name__ == "DTensor" and total_norm.full_tensor() > 0
        late.step()
        assert not all(torch.equal(b, p.full_tensor()) for b, p in zip(before, new, strict=True))
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    _check()
