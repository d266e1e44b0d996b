"""Tensor parallelism on 2 CPU ranks: column-parallel then row-parallel Linear equals the unsharded MLP."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)


def mlp() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    plan = {"0": ColwiseParallel(), "2": RowwiseParallel()}
    model = parallelize_module(mlp(), mesh, plan)
    # the same input on every rank
    x = torch.arange(12.0).reshape(3, 4).cos().requires_grad_()
    with CommDebugMode() as forward:
        y = model(x)
    with CommDebugMode() as backward:
        y.sum().backward()
    first, second = model[0].weight, model[2].weight
    result = {
        "shards": [f"{tuple(w.to_local().shape)} of {tuple(w.shape)} "
                   f"{w.placements}" for w in (first, second)],
        "collectives": (forward.get_total_counts(),
                        backward.get_total_counts()),
        "kinds": {str(op) for mode in (forward, backward)
                  for op in mode.get_comm_counts()},
        "y": y.detach().clone(),
        "x_grad": x.grad,
        "w_grad": first.grad.full_tensor(),
    }
    dist.destroy_process_group()
    return result


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    print("rank 0 holds", *ranks[0]["shards"], sep="\n  ")
    print("all-reduces in forward, backward:", ranks[0]["collectives"])
    reference = mlp()  # the same MLP, whole, in one process
    x = torch.arange(12.0).reshape(3, 4).cos().requires_grad_()
    expected = reference(x)
    expected.sum().backward()
    same = torch.allclose(ranks[0]["y"], expected, atol=1e-6)
    print("output equals the unsharded MLP:", same)
# > rank 0 holds
# >   (4, 4) of (8, 4) (Shard(dim=0),)
# >   (4, 4) of (4, 8) (Shard(dim=1),)
# > all-reduces in forward, backward: (1, 1)
# > output equals the unsharded MLP: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Both ranks end with the full, replicated output, and the gradients match the unsharded model's too.
    for r in ranks.values():
        torch.testing.assert_close(r["y"], expected.detach(), atol=1e-6, rtol=0)
        torch.testing.assert_close(r["x_grad"], x.grad, atol=1e-6, rtol=0)
        torch.testing.assert_close(r["w_grad"], reference[0].weight.grad, atol=1e-6, rtol=0)
    # The row-parallel layer sums partial products from the two ranks: equal up to float rounding, and the
    # collectives are the Megatron pair: one all-reduce after the row-parallel layer, one for the input grad.
    assert ranks[1]["shards"] == ranks[0]["shards"] and ranks[1]["collectives"] == (1, 1)
    assert ranks[0]["kinds"] == {"c10d_functional.all_reduce"}


if __name__ == "__main__":
    _check()
