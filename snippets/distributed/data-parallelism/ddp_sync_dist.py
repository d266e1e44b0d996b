"""How DDP keeps replicas in sync: one broadcast at construction, then bucketed all-reduces that overlap backward."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import (
    allreduce_hook,
)
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    # different initial weights on each rank, on purpose
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64),
                          nn.ReLU(), nn.Linear(64, 1))
    initial = model[0].weight.detach().clone()
    # broadcasts rank 0's weights; tiny buckets, to see more than one
    ddp = DDP(model, bucket_cap_mb=0.01)

    events = []

    # DDP calls this when every gradient in a bucket is ready
    def logged_allreduce(state, bucket):
        name, tensors = bucket.index(), len(bucket.parameters())
        events.append(f"all-reduce bucket {name} ({tensors} tensors) starts")
        # the default: an async all-reduce that averages
        return allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, logged_allreduce)
    model[0].weight.register_hook(
        lambda grad: events.append("first layer's weight gradient computed"))
    # DDP rebuilds its buckets after iteration 1, in the order grads arrived
    for _ in range(2):
        events.clear()
        ddp(torch.randn(8, 64)).sum().backward()
        events.append("backward() returns")
    grads = [p.grad.clone() for p in model.parameters()]
    dist.destroy_process_group()
    synced = model[0].weight.detach().clone()
    return {"initial": initial, "synced": synced, "events": events,
            "grads": grads}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    r0, r1 = ranks[0], ranks[1]
    print("initial weights differ:",
          not torch.equal(r0["initial"], r1["initial"]))
    print("after DDP(model), rank 1 holds rank 0's:",
          torch.equal(r1["synced"], r0["initial"]))
    print(*r0["events"], sep="\n")
    print("gradients identical on both ranks:",
          all(map(torch.equal, r0["grads"], r1["grads"])))
# > initial weights differ: True
# > after DDP(model), rank 1 holds rank 0's: True
# > all-reduce bucket 0 (4 tensors) starts
# > first layer's weight gradient computed
# > all-reduce bucket 1 (2 tensors) starts
# > backward() returns
# > gradients identical on both ranks: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Rank 0 kept its own weights; rank 1's were overwritten by the constructor's broadcast.
    assert torch.equal(ranks[0]["synced"], ranks[0]["initial"])
    assert not torch.equal(ranks[1]["synced"], ranks[1]["initial"])
    # Bucket 0 holds the LAST layers (reverse order of registration), and its all-reduce was launched while
    # backward was still computing the first layer's gradient: communication overlaps computation.
    events = ranks[0]["events"]
    first_allreduce = events.index("all-reduce bucket 0 (4 tensors) starts")
    assert first_allreduce < events.index("first layer's weight gradient computed")
    assert events[-1] == "backward() returns"
    assert ranks[1]["events"] == events  # the same schedule on every rank
    # Every rank ends with the same averaged gradients (rank 0 and 1 saw different random batches).
    assert all(torch.equal(a, b) for a, b in zip(ranks[0]["grads"], ranks[1]["grads"], strict=True))


if __name__ == "__main__":
    _check()
