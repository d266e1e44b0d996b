"""Gradient accumulation under DDP: no_sync() skips the all-reduce on all but the last micro-batch, same result."""

# --8<-- [start:demo]
import contextlib
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import (
    allreduce_hook,
)
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP

# the global batch: 8 samples per rank
X = torch.arange(64.0).reshape(16, 4).sin()
Y = torch.arange(16.0).reshape(16, 1).cos()


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    model = DDP(nn.Linear(4, 1))
    # rank 0's, after the broadcast
    start = {k: v.clone() for k, v in model.module.state_dict().items()}
    allreduces = []

    def counted_allreduce(state, bucket):
        allreduces.append(bucket.index())
        return allreduce_hook(state, bucket)

    model.register_comm_hook(None, counted_allreduce)
    accum_steps = 4
    x, y = X[rank::2], Y[rank::2]  # this rank's 8 samples: 4 micro-batches of 2
    so_far = []
    micro = zip(x.chunk(accum_steps), y.chunk(accum_steps), strict=True)
    for i, (xb, yb) in enumerate(micro):
        sync = i == accum_steps - 1
        # forward AND backward inside no_sync
        with contextlib.nullcontext() if sync else model.no_sync():
            loss = nn.functional.mse_loss(model(xb), yb) / accum_steps
            loss.backward()  # grads accumulate locally in .grad
        so_far.append(len(allreduces))
        if not sync:
            # this rank's own running sum
            local = model.module.weight.grad.clone()
    grads = [p.grad.clone() for p in model.module.parameters()]
    dist.destroy_process_group()
    return {"start": start, "allreduces": so_far, "local": local,
            "grads": grads}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    print("all-reduces so far, after each micro-batch:", ranks[0]["allreduces"])
    differ = not torch.equal(ranks[0]["local"], ranks[1]["local"])
    print("grads differ between ranks before the last micro-batch:", differ)

    # one process, the whole 16-sample batch, no accumulation
    reference = nn.Linear(4, 1)
    reference.load_state_dict(ranks[0]["start"])
    nn.functional.mse_loss(reference(X), Y).backward()
    pairs = zip(ranks[1]["grads"], reference.parameters(), strict=True)
    same = all(torch.allclose(g, p.grad, atol=1e-6) for g, p in pairs)
    print("equal to one big batch:", same)
# > all-reduces so far, after each micro-batch: [0, 0, 0, 1]
# > grads differ between ranks before the last micro-batch: True
# > equal to one big batch: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # One all-reduce per bucket, on the last micro-batch only (a model this small fits in one bucket).
    assert ranks[0]["allreduces"] == ranks[1]["allreduces"] == [0, 0, 0, 1]
    # Inside no_sync each rank holds only its own accumulated gradient; after the synced backward they match.
    assert all(torch.equal(a, b) for a, b in zip(ranks[0]["grads"], ranks[1]["grads"], strict=True))
    for grad, param in zip(ranks[0]["grads"], reference.parameters(), strict=True):
        torch.testing.assert_close(grad, param.grad)
    # The local running sums after 3 micro-batches were not the final gradients (nothing was averaged yet).
    assert not torch.allclose(ranks[0]["local"], ranks[0]["grads"][0])


if __name__ == "__main__":
    _check()
