"""DTensor placements on 2 CPU ranks: a row-parallel output is Partial, and each redistribution is one collective."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor.debug import CommDebugMode

X = torch.arange(8.0).reshape(2, 4)  # activations: 2 tokens, 4 features
W = torch.arange(8.0).reshape(4, 2)  # a row-parallel weight: 4 input rows


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    rank = dist.get_rank()
    mine = slice(2 * rank, 2 * rank + 2)  # this rank's 2 input features
    # each rank's product is a partial sum of X @ W: placement Partial()
    out = DTensor.from_local(X[:, mine] @ W[mine], mesh, [Partial()])
    moves = {}
    for name, source, target in [
        ("Partial -> Replicate", out, Replicate()),  # Megatron's all-reduce
        ("Partial -> Shard(0)", out, Shard(0)),  # sequence parallel
        ("Shard(0) -> Replicate", out.redistribute(mesh, [Shard(0)]),
         Replicate()),
        ("Replicate -> Shard(0)", out.redistribute(mesh, [Replicate()]),
         Shard(0)),
    ]:
        with CommDebugMode() as comm:
            moved = source.redistribute(mesh, [target])
        ops = [str(op).split(".")[-1] for op in comm.get_comm_counts()]
        moves[name] = (ops or ["no communication"], moved.to_local())
    result = {"local": out.to_local(), "moves": moves}
    dist.destroy_process_group()
    return result


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    print("rank 0's partial sum:", ranks[0]["local"].tolist())
    print("rank 1's partial sum:", ranks[1]["local"].tolist())
    print("move, its collective, and what rank 0 then holds:")
    for name, (ops, local) in ranks[0]["moves"].items():
        print(f"{name:21} {', '.join(ops):22} {local.tolist()}")
    print("X @ W =", (X @ W).tolist())
# > rank 0's partial sum: [[2.0, 3.0], [10.0, 19.0]]
# > rank 1's partial sum: [[26.0, 31.0], [66.0, 79.0]]
# > move, its collective, and what rank 0 then holds:
# > Partial -> Replicate  all_reduce             [[28.0, 34.0], [76.0, 98.0]]
# > Partial -> Shard(0)   reduce_scatter_tensor  [[28.0, 34.0]]
# > Shard(0) -> Replicate all_gather_into_tensor [[28.0, 34.0], [76.0, 98.0]]
# > Replicate -> Shard(0) no communication       [[28.0, 34.0]]
# > X @ W = [[28.0, 34.0], [76.0, 98.0]]
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The two partial sums add up to the product, and each redistribution gives what its placement says.
    torch.testing.assert_close(ranks[0]["local"] + ranks[1]["local"], X @ W)
    for r in (0, 1):
        moves = ranks[r]["moves"]
        torch.testing.assert_close(moves["Partial -> Replicate"][1], X @ W)
        torch.testing.assert_close(moves["Partial -> Shard(0)"][1], (X @ W)[r : r + 1])
        torch.testing.assert_close(moves["Shard(0) -> Replicate"][1], X @ W)
        torch.testing.assert_close(moves["Replicate -> Shard(0)"][1], (X @ W)[r : r + 1])
    # The row-parallel output is NOT the product on either rank until it is redistributed: reading a Partial
    # tensor's local data as the result is the bug the all-reduce fixes.
    assert not torch.equal(ranks[0]["local"], X @ W) and not torch.equal(ranks[1]["local"], X @ W)
    # One collective each: all-reduce = reduce-scatter + all-gather, and Replicate -> Shard is a local slice.
    assert ranks[0]["moves"]["Partial -> Replicate"][0] == ["all_reduce"]
    assert ranks[0]["moves"]["Replicate -> Shard(0)"][0] == ["no communication"]

    # GQA under tensor parallelism: the K and V projections are column-parallel, split by whole heads. With
    # 1 KV head (head_dim 4) and a TP degree of 2, a Shard(0) split of k_proj's rows leaves each rank half a
    # head, which can't be viewed as heads: the KV-head count must divide by the TP degree.
    head_dim, n_kv_heads, tp = 4, 1, 2
    k_proj = torch.randn(n_kv_heads * head_dim, 8)
    shard = k_proj.chunk(tp, dim=0)[0]  # Shard(0)'s split, as on rank 0
    keys = torch.randn(3, 8) @ shard.T
    with pytest.raises(RuntimeError, match="invalid for input of size"):
        keys.view(3, n_kv_heads // tp or 1, head_dim)
    n_kv_heads = 2  # divisible: each rank gets one whole KV head
    k_proj = torch.randn(n_kv_heads * head_dim, 8)
    keys = torch.randn(3, 8) @ k_proj.chunk(tp, dim=0)[0].T
    assert keys.view(3, n_kv_heads // tp, head_dim).shape == (3, 1, 4)


if __name__ == "__main__":
    _check()
