"""A DDP training script as torchrun runs it: one process per device, identity from env vars, replicas in lockstep."""

# --8<-- [start:demo]
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main() -> dict:
    # torchrun sets these in every process it starts
    rank = int(os.environ["RANK"])
    # the process's index on its machine: picks its GPU
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    # also reads MASTER_ADDR and MASTER_PORT
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))

    # the same data set on every rank
    x = torch.arange(256.0).reshape(64, 4).sin()
    data = TensorDataset(x, x.sum(dim=1, keepdim=True))
    # this rank's 1/world_size of the indices
    sampler = DistributedSampler(data)
    # 8 per rank, 16 per optimizer step
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    # one seed on every rank to build the model (FSDP2 relies on it; DDP
    # also broadcasts rank 0's initial weights to every rank)
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    # then one seed per rank for dropout and random augmentation (the
    # sampler keeps its own seed, the same on every rank)
    torch.manual_seed(1000 + rank)

    # evaluate through model.module: no DDP bookkeeping, no graph
    def full_loss() -> float:
        with torch.no_grad():
            pred = model.module(x)
            return nn.functional.mse_loss(pred, data.tensors[1]).item()

    before = full_loss()
    for epoch in range(3):
        sampler.set_epoch(epoch)  # a different shuffle every epoch
        for xb, yb in loader:
            optimizer.zero_grad()
            # gradients are averaged across ranks here
            nn.functional.mse_loss(model(xb), yb).backward()
            optimizer.step()
    after = full_loss()
    weights = model.module.weight.detach().clone()
    dist.destroy_process_group()
    noise = torch.rand(3)  # what dropout would draw on this rank
    return {"env": (rank, local_rank, world_size), "loss": (before, after),
            "weights": weights, "noise": noise, "sampler_seed": sampler.seed}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    # the Python side of `torchrun --standalone --nproc_per_node=2 train.py`
    results = elastic_launch(config, main)()
    for r in results.values():
        before, after = r["loss"]
        print("RANK, LOCAL_RANK, WORLD_SIZE =", r["env"],
              "| loss fell:", after < before)
    same = torch.equal(results[0]["weights"], results[1]["weights"])
    print("replicas identical:", same)
# > RANK, LOCAL_RANK, WORLD_SIZE = (0, 0, 2) | loss fell: True
# > RANK, LOCAL_RANK, WORLD_SIZE = (1, 1, 2) | loss fell: True
# > replicas identical: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert sorted(results) == [0, 1]
    assert [r["env"] for r in results.values()] == [(0, 0, 2), (1, 1, 2)]
    # Both replicas end bit-for-bit equal, and they learned: the full-data loss drops on every rank.
    assert torch.equal(results[0]["weights"], results[1]["weights"])
    for r in results.values():
        before, after = r["loss"]
        assert after < 0.5 * before
    # The loss before training is the same on both ranks: DDP broadcast rank 0's initial weights.
    assert results[0]["loss"][0] == results[1]["loss"][0]
    # One rule for seeds: the model is built from one seed, the per-rank RNG (dropout, augmentation) is
    # offset by the rank, and the sampler's seed is shared so its shards partition one permutation.
    assert not torch.equal(results[0]["noise"], results[1]["noise"])
    assert results[0]["sampler_seed"] == results[1]["sampler_seed"] == 0


if __name__ == "__main__":
    _check()
