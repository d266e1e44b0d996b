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
    rank = int(os.environ["RANK"])  # torchrun sets these in every process it starts
    local_rank = int(os.environ["LOCAL_RANK"])  # the process's index on its machine: picks its GPU
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))  # also reads MASTER_ADDR and MASTER_PORT

    x = torch.arange(256.0).reshape(64, 4).sin()  # the same data set on every rank
    data = TensorDataset(x, x.sum(dim=1, keepdim=True))
    sampler = DistributedSampler(data)  # this rank's 1/world_size of the indices
    loader = DataLoader(data, batch_size=8, sampler=sampler)  # 8 per rank, 16 per optimizer step
    model = DDP(nn.Linear(4, 1))  # copies rank 0's initial weights to every rank
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def full_loss() -> float:  # evaluate through model.module: no DDP bookkeeping, no graph
        with torch.no_grad():
            return nn.functional.mse_loss(model.module(x), data.tensors[1]).item()

    before = full_loss()
    for epoch in range(3):
        sampler.set_epoch(epoch)  # a different shuffle every epoch
        for xb, yb in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(xb), yb).backward()  # gradients are averaged across ranks here
            optimizer.step()
    after = full_loss()
    weights = model.module.weight.detach().clone()
    dist.destroy_process_group()
    return {"env": (rank, local_rank, world_size), "loss": (before, after), "weights": weights}


if __name__ == "__main__":
    config = LaunchConfig(  # what `torchrun --standalone --nproc_per_node=2` sets up
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    results = elastic_launch(config, main)()  # the Python side of `torchrun --standalone --nproc_per_node=2 train.py`
    for r in results.values():
        print("RANK, LOCAL_RANK, WORLD_SIZE =", r["env"], "| loss went down:", r["loss"][1] < r["loss"][0])
    print("replicas identical:", torch.equal(results[0]["weights"], results[1]["weights"]))
# > RANK, LOCAL_RANK, WORLD_SIZE = (0, 0, 2) | loss went down: True
# > RANK, LOCAL_RANK, WORLD_SIZE = (1, 1, 2) | loss went down: True
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


if __name__ == "__main__":
    _check()
