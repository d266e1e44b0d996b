"""The same DDP script on GPUs: LOCAL_RANK picks each process's device and NCCL all-reduces the gradients."""

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
    local_rank = int(os.environ["LOCAL_RANK"])
    # first: one GPU per process, never all on GPU 0
    torch.accelerator.set_device_index(local_rank)
    kind = torch.accelerator.current_accelerator().type  # "cuda"
    device = torch.device(kind, local_rank)
    dist.init_process_group("nccl", device_id=device,
                            timeout=timedelta(seconds=60))

    x = torch.arange(256.0).reshape(64, 4).sin()
    data = TensorDataset(x, x.sum(dim=1, keepdim=True))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler, pin_memory=True)
    # move first, then wrap
    model = DDP(nn.Linear(4, 1).to(device), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def full_loss() -> float:
        with torch.no_grad():
            pred = model.module(x.to(device))
            target = data.tensors[1].to(device)
            return nn.functional.mse_loss(pred, target).item()

    before = full_loss()
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            xb = xb.to(device, non_blocking=True)
            yb = yb.to(device, non_blocking=True)
            optimizer.zero_grad()
            nn.functional.mse_loss(model(xb), yb).backward()
            optimizer.step()
    after = full_loss()
    weights = model.module.weight.detach().cpu()
    dist.destroy_process_group()
    return {"loss": (before, after), "weights": weights}


if __name__ == "__main__":
    config = LaunchConfig(
        min_nodes=1,
        max_nodes=1,
        nproc_per_node=torch.accelerator.device_count(),  # one process per GPU
        max_restarts=0,
        rdzv_backend="c10d",
        rdzv_endpoint="127.0.0.1:0",
        run_id="demo",
    )
    results = elastic_launch(config, main)()
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # One process ran per GPU, every replica ended with the same weights (bit for bit), and each one learned.
    assert sorted(results) == list(range(torch.accelerator.device_count()))
    first = results[0]["weights"]
    assert all(torch.equal(first, r["weights"]) for r in results.values())
    for r in results.values():
        before, after = r["loss"]
        assert after < 0.5 * before


if __name__ == "__main__":
    _check()
