"""Rapid-fire answers for Module 7 that are best given as code."""

# --8<-- [start:module_prefix]
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

# DistributedDataParallel adds the same prefix
wrapped = nn.DataParallel(nn.Linear(2, 2))
print(list(wrapped.state_dict()))
# > ['module.weight', 'module.bias']
# save the inner module's state instead...
print(list(wrapped.module.state_dict()))
# > ['weight', 'bias']
state = wrapped.state_dict()
# ...or strip the prefix from an old checkpoint
consume_prefix_in_state_dict_if_present(state, "module.")
print(list(state))
# > ['weight', 'bias']
# --8<-- [end:module_prefix]

# --8<-- [start:fsdp_on_cpu]
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

# a one-process group
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
model = nn.Linear(4, 4)
# FSDP2 runs on CPU, with gloo
fully_shard(model, mesh=init_device_mesh("cpu", (1,)))
weight = model.weight
print(type(model).__name__, type(weight).__name__, weight.placements)
dist.destroy_process_group()
# > FSDPLinear DTensor (Shard(dim=0),)
# --8<-- [end:fsdp_on_cpu]

# --8<-- [start:effective_batch]
per_device, world_size, accumulation = 16, 8, 4
# samples behind one optimizer step
effective = per_device * world_size * accumulation
base_lr, base_batch = 0.1, 256  # a recipe tuned at batch 256
# the linear scaling rule: lr grows with the batch
print(effective, base_lr * effective / base_batch)
# > 512 0.2
# --8<-- [end:effective_batch]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    import torch
    from torch.distributed.fsdp import FullyShardedDataParallel

    # The stripped keys load into a plain model; the prefixed ones do not.
    plain = nn.Linear(2, 2)
    plain.load_state_dict(state)
    with pytest.raises(RuntimeError, match="Missing key"):
        plain.load_state_dict(wrapped.state_dict())
    assert not dist.is_initialized()
    # FSDP1 (FullyShardedDataParallel) refuses a machine without an accelerator; FSDP2 did not (above).
    for _ in range(0 if torch.accelerator.is_available() else 1):  # a CPU-only fact: skip it on a GPU machine
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        try:
            with pytest.raises(RuntimeError, match="FSDP needs a non-CPU accelerator device"):
                FullyShardedDataParallel(nn.Linear(4, 4))
        finally:
            dist.destroy_process_group()
    assert effective == 512 and base_lr * effective / base_batch == 0.2


if __name__ == "__main__":
    _check()
