"""SyncBatchNorm on 2 GPUs normalises with global batch statistics: it equals one BatchNorm on the whole batch."""

# needs 2 GPUs: SyncBatchNorm syncs statistics across devices

# --8<-- [start:demo]
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP

# the global batch: 8 samples per rank
X = torch.arange(64.0).reshape(16, 4).sin()


def build() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))


def main(sync: bool) -> dict:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.accelerator.set_device_index(local_rank)
    kind = torch.accelerator.current_accelerator().type  # "cuda"
    device = torch.device(kind, local_rank)
    dist.init_process_group("nccl", device_id=device,
                            timeout=timedelta(seconds=60))
    model = build()
    if sync:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model.to(device), device_ids=[local_rank])
    rank = dist.get_rank()
    out = model(X[rank * 8 : rank * 8 + 8].to(device))
    result = {"out": out.detach().cpu(),
              "running_mean": model.module[1].running_mean.cpu()}
    dist.destroy_process_group()
    return result


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    # SyncBatchNorm: statistics of all 16 samples
    synced = elastic_launch(config, main)(True)
    # BatchNorm under DDP: statistics of each rank's 8
    local = elastic_launch(config, main)(False)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    reference = build()  # one process, one BatchNorm over the concatenated 16-sample batch
    expected = reference(X).detach()
    together = torch.cat([synced[0]["out"], synced[1]["out"]])
    torch.testing.assert_close(together, expected, atol=1e-5, rtol=1e-5)
    # SyncBatchNorm updates the running statistics with the global mean, identically on both ranks.
    for rank in (0, 1):
        torch.testing.assert_close(synced[rank]["running_mean"], reference[1].running_mean, atol=1e-5, rtol=1e-5)
    # Plain BatchNorm under DDP normalises each rank's half with that half's statistics: a different output.
    apart = torch.cat([local[0]["out"], local[1]["out"]])
    assert not torch.allclose(apart, expected, atol=1e-3)
    assert not torch.allclose(local[0]["running_mean"], local[1]["running_mean"])


if __name__ == "__main__":
    _check()
