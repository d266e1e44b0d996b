"""FSDP2's knobs, counted: mixed precision, reshard_after_forward, gradient sync off for accumulation, and HSDP."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.distributed.tensor.debug import CommDebugMode


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


def sharded(mesh, **options) -> Net:
    model = Net()
    for layer in model.layers:
        fully_shard(layer, mesh=mesh, **options)
    return fully_shard(model, mesh=mesh, **options)


def backward_collectives(model: Net) -> dict[str, int]:
    # forward: each unit all-gathers its parameters once
    loss = model(torch.randn(4, 8)).float().sum()
    with CommDebugMode() as comm:
        loss.backward()
    counts = comm.get_comm_counts().items()
    return {str(op).removeprefix("c10d._").removesuffix("_base_"): n
            for op, n in counts}


def main() -> list[str]:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    # say reduce_dtype: left out, the gradients are reduced in bf16
    bf16 = MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                reduce_dtype=torch.float32)
    report = []
    # None: the default (True, except for the root)
    for reshard in (None, True, False):
        model = sharded(mesh, mp_policy=bf16, reshard_after_forward=reshard)
        counts = backward_collectives(model)
        report.append(f"reshard_after_forward={reshard}: backward {counts}")
    seen = []
    model.layers[0].register_forward_hook(
        lambda module, args, out: seen.append(out.dtype))
    # accumulation: skip the reduce-scatter on this micro-batch
    model.set_requires_gradient_sync(False)
    report.append(f"gradient sync off: backward {backward_collectives(model)}")
    # its .grad: the reduce-scattered shard from the previous backward
    weight = model.layers[0].weight
    report.append(f"compute {seen[0]}, shards {weight.dtype}, "
                  f"grads {weight.grad.dtype}")

    # a different seed per rank to build the model: a bug DDP would hide
    torch.manual_seed(rank)
    full = sharded(mesh).layers[0].weight.full_tensor()
    built = []
    for seed in (0, 1):  # what each rank built
        torch.manual_seed(seed)
        built.append(Net().layers[0].weight)
    mixed = (torch.equal(full[:4], built[0][:4])
             and torch.equal(full[4:], built[1][4:]))
    report.append("different seeds: rows 0-3 are rank 0's init, "
                  f"rows 4-7 rank 1's: {mixed}")

    # 2 "nodes" x 1 GPU
    hsdp = init_device_mesh("cpu", (2, 1),
                            mesh_dim_names=("replicate", "shard"))
    placements = sharded(hsdp).layers[0].weight.placements
    report.append(f"HSDP weight placements: {placements}")
    dist.destroy_process_group()
    return report


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    reports = elastic_launch(config, main)()
    print(*reports[0], sep="\n")
# > reshard_after_forward=None: backward {'allgather': 2, 'reduce_scatter': 3}
# > reshard_after_forward=True: backward {'allgather': 3, 'reduce_scatter': 3}
# > reshard_after_forward=False: backward {'reduce_scatter': 3}
# > gradient sync off: backward {}
# > compute torch.bfloat16, shards torch.float32, grads torch.float32
# > different seeds: rows 0-3 are rank 0's init, rows 4-7 rank 1's: True
# > HSDP weight placements: (Replicate(), Shard(dim=0))
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _reduce_scatter_dtypes(reduce_dtype: torch.dtype | None) -> list[str]:
    """The dtype of every reduce-scatter a bf16-compute model's backward issues, on a two-rank "fake" process
    group in this process: the collectives are called as on real ranks but move nothing (no launch needed)."""
    from torch.testing._internal.distributed.fake_pg import FakeStore  # the fake backend's store (torch < 2.14)
    from torch.utils._python_dispatch import TorchDispatchMode

    class ReduceScatters(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.dtypes: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.namespace == "c10d" and "reduce_scatter" in func.__name__:
                self.dtypes += [str(t.dtype) for t in args[:2] if isinstance(t, torch.Tensor)]  # output, input
            return func(*args, **(kwargs or {}))

    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
    try:
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=reduce_dtype)
        model = sharded(init_device_mesh("cpu", (2,)), mp_policy=policy)
        loss = model(torch.randn(4, 8)).float().sum()
        with ReduceScatters() as seen:
            loss.backward()
        return seen.dtypes
    finally:
        dist.destroy_process_group()


def _check() -> None:
    # Every rank ran the same schedule of collectives and saw the same dtypes and placements.
    assert reports[0] == reports[1]
    default, always, never, no_sync, dtypes, seeds, hsdp = reports[0]
    # Three FSDP units (two layers, and the root with the head) reduce-scatter once each in backward. Backward
    # re-gathers every unit that resharded after forward: by default all but the root; with True, all three.
    assert default.endswith("{'allgather': 2, 'reduce_scatter': 3}")
    assert always.endswith("{'allgather': 3, 'reduce_scatter': 3}")
    assert never.endswith("{'reduce_scatter': 3}")  # nothing to re-gather: parameters stayed unsharded
    assert no_sync.endswith("{}")  # no reduce-scatter at all: gradients stay local and unsharded
    # Mixed precision: bf16 compute, fp32 storage and fp32 reduced gradients (the master weights live sharded).
    assert dtypes == "compute torch.bfloat16, shards torch.float32, grads torch.float32"
    # FSDP2 does not broadcast initial weights: each rank kept its slice of what IT built.
    assert seeds.endswith(": True")
    assert hsdp == "HSDP weight placements: (Replicate(), Shard(dim=0))"

    # The policy's defaults: no casting at all, and reduce_dtype=None, which reduces in param_dtype. With
    # param_dtype=bf16 alone each of the three reduce-scatters takes and returns bf16 tensors (the sum across
    # ranks is done in bf16); only reduce_dtype=torch.float32 reduces in fp32. "A bf16 policy reduces in
    # fp32" fails here.
    policy = MixedPrecisionPolicy()
    assert (policy.param_dtype, policy.reduce_dtype, policy.output_dtype) == (None, None, None)
    assert policy.cast_forward_inputs is True
    assert _reduce_scatter_dtypes(None) == ["torch.bfloat16"] * 6
    assert _reduce_scatter_dtypes(torch.float32) == ["torch.float32"] * 6


if __name__ == "__main__":
    _check()
