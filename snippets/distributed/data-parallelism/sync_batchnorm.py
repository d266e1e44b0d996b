"""convert_sync_batchnorm swaps every BatchNorm for SyncBatchNorm, and DDP refuses it on a CPU module."""

# --8<-- [start:demo]
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
# before DDP(...), after building the model
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
print(type(model[1]).__name__)
# > SyncBatchNorm

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    DDP(model)  # the module is on the CPU
except ValueError as err:
    print(err)
dist.destroy_process_group()
# > SyncBatchNorm layers only work with GPU modules
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    import torch

    # The conversion keeps the learned state: same affine parameters and running statistics, same keys.
    plain = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
    plain[1].running_mean.fill_(0.5)
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(plain)
    assert isinstance(synced[1], nn.SyncBatchNorm) and list(synced.state_dict()) == list(plain.state_dict())
    assert torch.equal(synced[1].running_mean, torch.full((8,), 0.5))
    # In eval mode SyncBatchNorm needs no process group at all: it just uses its running statistics.
    synced.eval()
    assert synced(torch.randn(2, 3, 5, 5)).shape == (2, 8, 3, 3)
    # Outside a process group, a training-mode forward is plain BatchNorm: there is nothing to sync with.
    synced.train()
    reference = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
    reference.load_state_dict(synced.state_dict())
    x = torch.randn(2, 3, 5, 5)
    torch.testing.assert_close(synced(x), reference(x))
    torch.testing.assert_close(synced[1].running_mean, reference[1].running_mean)
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        with pytest.raises(ValueError, match="SyncBatchNorm layers only work with GPU modules"):
            DDP(synced)
        # The old switch for per-forward buffer syncing is deprecated since 2.13: forward_sync_buffers replaces it.
        with pytest.warns(FutureWarning, match="`broadcast_buffers` is deprecated. Use `forward_sync_buffers`"):
            DDP(reference, broadcast_buffers=False)
        assert DDP(reference, forward_sync_buffers=False).forward_sync_buffers is False
        assert DDP(reference).forward_sync_buffers is True  # the default: rank 0's buffers at every forward
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    _check()
