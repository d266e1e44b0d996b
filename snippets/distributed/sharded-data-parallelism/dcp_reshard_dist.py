"""Distributed checkpointing: 2 FSDP2 ranks save their shards in parallel; one process loads them, resharded."""

# --8<-- [start:demo]
import os
import tempfile
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_state_dict,
)
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def main(checkpoint_dir: str) -> dict[str, torch.Tensor]:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)
    model = build()
    fully_shard(model[0], mesh=mesh)
    fully_shard(model[2], mesh=mesh)
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
    model(torch.randn(8, 4)).sum().backward()
    optimizer.step()

    # sharded: DTensors, no all-gather
    model_state, optimizer_state = get_state_dict(model, optimizer)
    # every rank writes its own shards
    state = {"model": model_state, "optimizer": optimizer_state}
    dcp.save(state, checkpoint_id=checkpoint_dir)
    # all-gathered, kept on rank 0 only
    gathered = StateDictOptions(full_state_dict=True, cpu_offload=True)
    full = get_model_state_dict(model, options=gathered)
    dist.destroy_process_group()
    return full


if __name__ == "__main__":
    checkpoint_dir = tempfile.mkdtemp()
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    full = elastic_launch(config, main)(checkpoint_dir)
    print("full state dict entries on ranks 0, 1:", len(full[0]), len(full[1]))
    # one file per rank, plus the global metadata
    print(sorted(os.listdir(checkpoint_dir)))

    # one process, no process group, an ordinary unsharded model
    plain = build()
    state = {"model": plain.state_dict()}
    # reads each tensor's slices from whichever files hold them
    dcp.load(state, checkpoint_id=checkpoint_dir)
    plain.load_state_dict(state["model"])
    same = all(torch.equal(full[0][k], v)
               for k, v in plain.state_dict().items())
    print("equal to the 2-rank model:", same)
# > full state dict entries on ranks 0, 1: 4 0
# > ['.metadata', '__0_0.distcp', '__1_0.distcp']
# > equal to the 2-rank model: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import shutil

    import pytest
    from torch.distributed.fsdp import FullyShardedDataParallel, StateDictType

    # The trained weights differ from a fresh model: the comparison above is not trivially true.
    torch.manual_seed(0)
    fresh = build()
    assert not all(torch.equal(full[0][k], v) for k, v in fresh.state_dict().items())
    assert list(full[0]) == list(fresh.state_dict()) and all(v.device.type == "cpu" for v in full[0].values())
    # The checkpoint also holds the optimizer state, loadable into plain tensors by its flattened names.
    meta = dcp.FileSystemReader(checkpoint_dir).read_metadata()
    keys = set(meta.state_dict_metadata)
    assert {"model.0.weight", "model.2.bias"} <= keys
    assert any(key.startswith("optimizer.state.") and key.endswith("exp_avg") for key in keys)
    shutil.rmtree(checkpoint_dir)
    # FSDP1's own state-dict switch is deprecated in favour of get_state_dict / set_state_dict, used above.
    with pytest.warns(FutureWarning, match="Please use APIs, get_state_dict"):
        FullyShardedDataParallel.set_state_dict_type(build(), StateDictType.FULL_STATE_DICT)


if __name__ == "__main__":
    _check()
