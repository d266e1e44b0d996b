"""The four collectives on 2 ranks, and all-reduce = reduce-scatter followed by all-gather."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


def main() -> dict[str, list[int]]:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world_size = dist.get_rank(), dist.get_world_size()
    # rank 0: [1, 2, 3, 4], rank 1: [2, 4, 6, 8]
    mine = torch.arange(1, 5) * (rank + 1)

    summed = mine.clone()
    dist.all_reduce(summed)  # in place: every rank gets the elementwise sum
    pieces = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(pieces, mine)  # every rank gets every rank's tensor
    shard = torch.empty_like(mine[:2])
    # rank r gets the sum of everyone's chunk r
    dist.reduce_scatter(shard, list(mine.chunk(world_size)))
    copied = mine.clone()
    dist.broadcast(copied, src=0)  # every rank gets rank 0's tensor
    shards = [torch.empty_like(shard) for _ in range(world_size)]
    # reduce-scatter, then all-gather the shards...
    dist.all_gather(shards, shard)
    results = {
        "input": mine,
        "all_reduce": summed,
        "all_gather": torch.cat(pieces),
        "reduce_scatter": shard,
        "broadcast": copied,
        "reduce_scatter + all_gather": torch.cat(shards),  # ...is an all-reduce
    }
    dist.destroy_process_group()
    return {name: t.tolist() for name, t in results.items()}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    for name in ranks[0]:
        a, b = (" ".join(map(str, ranks[r][name])) for r in (0, 1))
        print(f"{name:27} rank 0: {a:15} rank 1: {b}")
# > input                       rank 0: 1 2 3 4         rank 1: 2 4 6 8
# > all_reduce                  rank 0: 3 6 9 12        rank 1: 3 6 9 12
# > all_gather                  rank 0: 1 2 3 4 2 4 6 8 rank 1: 1 2 3 4 2 4 6 8
# > reduce_scatter              rank 0: 3 6             rank 1: 9 12
# > broadcast                   rank 0: 1 2 3 4         rank 1: 1 2 3 4
# > reduce_scatter + all_gather rank 0: 3 6 9 12        rank 1: 3 6 9 12
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    for r in ranks.values():
        assert r["reduce_scatter + all_gather"] == r["all_reduce"]
    assert ranks[0]["reduce_scatter"] + ranks[1]["reduce_scatter"] == ranks[0]["all_reduce"]

    # The tensor-in, tensor-out spellings were renamed on recent releases (2.14 warns), so the page uses the
    # list forms, which every release since 2.6 accepts. Checked in a one-process group.
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        out = torch.empty(2)
        with pytest.warns(FutureWarning, match="all_gather_single"):
            dist.all_gather_into_tensor(out, torch.ones(2))
        with pytest.warns(FutureWarning, match="reduce_scatter_single"):
            dist.reduce_scatter_tensor(out, torch.ones(2))
        dist.all_gather_single(out, torch.full((2,), 3.0))
        assert out.tolist() == [3.0, 3.0]
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    _check()
