"""How DDP keeps replicas in sync: one broadcast at construction, then bucketed all-reduces that overlap backward."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    torch.manual_seed(rank)  # different initial weights on each rank, on purpose
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    initial = model[0].weight.detach().clone()
    ddp = DDP(model, bucket_cap_mb=0.01)  # broadcasts rank 0's weights; tiny buckets, to see more than one

    events = []

    def logged_allreduce(state, bucket):  # DDP calls this when every gradient in a bucket is ready
        events.append(f"all-reduce bucket {bucket.index()} ({len(bucket.parameters())} tensors) starts")
        return allreduce_hook(state, bucket)  # the default: an async all-reduce that averages

    ddp.register_comm_hook(None, logged_allreduce)
    model[0].weight.register_hook(lambda grad: events.append("first layer's weight gradient computed"))
    for _ in range(2):  # after the first iteration DDP rebuilds its buckets in the order gradients arrived
        events.clear()
        ddp(torch.randn(8, 64)).sum().backward()
        events.append("backward() returns")
    grads = [p.grad.clone() for p in model.parameters()]
    dist.destroy_process_group()
    return {"initial": initial, "synced": model[0].weight.detach().clone(), "events": events, "grads": grads}


if __name__ == "__main__":
    config = LaunchConfig(  # what `torchrun --standalone --nproc_per_node=2` sets up
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    print("initial weights differ:", not torch.equal(ranks[0]["initial"], ranks[1]["initial"]))
    print("after DDP(model), rank 1 holds rank 0's:", torch.equal(ranks[1]["synced"], ranks[0]["initial"]))
    print(*ranks[0]["events"], sep="\n")
    print("gradients identical on both ranks:", all(map(torch.equal, ranks[0]["grads"], ranks[1]["grads"])))
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
