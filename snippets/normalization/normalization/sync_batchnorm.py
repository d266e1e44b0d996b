"""Per-GPU BatchNorm under DDP vs SyncBatchNorm's global statistics, simulated on one CPU with batch shards."""

# --8<-- [start:shards]
import torch
from torch import nn

global_batch = torch.randn(8, 3) * 2 + 1
# what three DDP ranks see: 3, 3 and 2 samples
shards = global_batch.split([3, 3, 2])
# the statistics we would like
full = nn.BatchNorm1d(3, affine=False)(global_batch)

# plain BatchNorm under DDP
per_rank = torch.cat([nn.BatchNorm1d(3, affine=False)(s) for s in shards])
print(torch.allclose(per_rank, full, atol=1e-4))
# > False

# SyncBatchNorm gathers each rank's per-channel statistics and count,
# and combines them:
counts = torch.tensor([len(s) for s in shards], dtype=torch.float32)[:, None]
means = torch.stack([s.mean(dim=0) for s in shards])
variances = torch.stack([s.var(dim=0, unbiased=False) for s in shards])
mean = (counts * means).sum(dim=0) / counts.sum()
# within + between ranks
var = (counts * (variances + (means - mean) ** 2)).sum(dim=0) / counts.sum()
synced = torch.cat([(s - mean) / torch.sqrt(var + 1e-5) for s in shards])
print(torch.allclose(synced, full, atol=1e-4))
# > True
# --8<-- [end:shards]

# --8<-- [start:convert]
import torch
from torch import nn

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
# once, before wrapping the model in DDP
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
print(type(model[1]).__name__, model[1].num_features)
# > SyncBatchNorm 8
# then, in each process:
# DistributedDataParallel(model.to(device), device_ids=[local_rank])
# --8<-- [end:convert]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from unittest import mock

    import pytest

    # The per-rank result is each shard normalized by itself; the synced result IS the full-batch result.
    torch.testing.assert_close(
        per_rank[:3], nn.BatchNorm1d(3, affine=False)(global_batch[:3])
    )
    torch.testing.assert_close(synced, full, atol=1e-4, rtol=1e-4)
    # Averaging the shards' means without their counts would be wrong when shards differ in size.
    assert not torch.allclose(
        means.mean(dim=0), global_batch.mean(dim=0), atol=1e-4
    )

    # Why combine per-rank (mean, var, count) rather than raw sums of squares: far from zero, E[x²] - mean² cancels.
    far = (torch.randn(8, 3) + 1e4).split([3, 3, 2])
    exact = torch.cat(far).double().var(dim=0, unbiased=False)
    n = torch.tensor([len(s) for s in far], dtype=torch.float32)[:, None]
    m_i = torch.stack([s.mean(dim=0) for s in far])
    v_i = torch.stack([s.var(dim=0, unbiased=False) for s in far])
    m = (n * m_i).sum(dim=0) / n.sum()
    combined = (n * (v_i + (m_i - m) ** 2)).sum(dim=0) / n.sum()
    naive = (
        sum(s.pow(2).sum(dim=0) for s in far) / 8
        - torch.cat(far).mean(dim=0) ** 2
    )
    assert torch.allclose(combined.double(), exact, rtol=0.05)
    assert not torch.allclose(naive.double(), exact, rtol=0.5)
    # convert_sync_batchnorm swaps the class and keeps the parameters and running stats.
    plain = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
    plain(
        torch.randn(4, 3, 6, 6)
    )  # move its running stats away from the defaults
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(plain)
    assert isinstance(converted[1], nn.SyncBatchNorm) and isinstance(
        model[1], nn.SyncBatchNorm
    )
    assert (
        converted[1].num_batches_tracked.item() == 1
        and converted[1].running_mean.abs().sum() > 0
    )

    # Without a process group, SyncBatchNorm silently falls back to plain BatchNorm (nothing to sync).
    sync, reference = (
        nn.SyncBatchNorm(3, affine=False),
        nn.BatchNorm1d(3, affine=False),
    )
    torch.testing.assert_close(sync(global_batch), reference(global_batch))
    # With a process group, a CPU tensor in training mode is refused: the sync path supports GPU-like devices only.
    with mock.patch("torch.distributed.is_initialized", return_value=True):
        with pytest.raises(
            ValueError,
            match="SyncBatchNorm expected input tensor to be on GPU or XPU",
        ):
            nn.SyncBatchNorm(3)(global_batch)
        sync.eval()  # eval mode never syncs: it uses the running stats
        assert sync(global_batch).shape == (8, 3)


if __name__ == "__main__":
    _check()
