"""FSDP1 wraps a module and flattens its parameters into one FlatParameter; FSDP2 keeps one DTensor per parameter."""

# --8<-- [start:demo]
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel, fully_shard

device = torch.device(torch.accelerator.current_accelerator().type, 0)
dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1,
                        device_id=device)

# FSDP1: a wrapper
net = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 1)).to(device)
old = FullyShardedDataParallel(net)
print(type(old).__name__, [type(p).__name__ for p in old.parameters()])
# > FullyShardedDataParallel ['FlatParameter']

new = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 1)).to(device)
# FSDP2: the module itself, per parameter
fully_shard(new, mesh=init_device_mesh(device.type, (1,)))
print(type(new).__name__, [type(p).__name__ for p in new.parameters()])
# > FSDPSequential ['DTensor', 'DTensor', 'DTensor', 'DTensor']
dist.destroy_process_group()
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.distributed.fsdp import FSDPModule

    # FSDP1: one flat parameter holds all 4 * 8 + 8 + 8 + 1 = 49 values (padded, never fewer).
    (flat,) = old.parameters()
    assert flat.numel() >= 49
    # FSDP2: the original parameter names survive; the module is still a Sequential (a dynamic subclass).
    assert isinstance(new, FSDPModule) and isinstance(new, nn.Sequential)
    assert [name for name, _ in new.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


if __name__ == "__main__":
    _check()
