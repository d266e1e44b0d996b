"""Token-weighted loss across 2 DDP ranks (gloo): per-rank means are biased; sum x world / global tokens is exact."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP

torch.manual_seed(0)
X = torch.randn(2, 12, 8)  # 12 token positions per rank
LABELS = torch.randint(0, 5, (2, 12))
LABELS[0, 2:] = -100  # rank 0 has 2 target tokens
# rank 1 keeps all 12


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    x, labels = X[rank], LABELS[rank]
    torch.manual_seed(1)
    model = DDP(nn.Linear(8, 5))

    # 1. each rank's own token mean; DDP averages the ranks' gradients
    F.cross_entropy(model(x), labels).backward()
    per_rank_mean = model.module.weight.grad.clone()
    model.zero_grad()

    # 2. the global token count, then sum / count (x world: DDP divides)
    tokens = (labels != -100).sum()
    dist.all_reduce(tokens)
    loss = F.cross_entropy(model(x), labels, reduction="sum")
    (loss * world / tokens).backward()
    weighted = model.module.weight.grad.clone()
    dist.destroy_process_group()
    return {"mean": per_rank_mean, "weighted": weighted}


if __name__ == "__main__":
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="tokens",
    )
    ranks = elastic_launch(config, main)()
    torch.manual_seed(1)
    reference = nn.Linear(8, 5)  # one process, all 14 tokens
    F.cross_entropy(reference(X.flatten(0, 1)), LABELS.flatten()).backward()
    ref = reference.weight.grad
    print("per-rank mean == global:", torch.allclose(ranks[0]["mean"], ref))
    print("sum x W / global tokens == global:",
          torch.allclose(ranks[0]["weighted"], ref, atol=1e-6))
# > per-rank mean == global: False
# > sum x W / global tokens == global: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.testing.assert_close(ranks[0]["weighted"], ref)
    torch.testing.assert_close(ranks[1]["weighted"], ref)
    assert not torch.allclose(ranks[0]["mean"], ref, atol=1e-3)
    assert torch.equal(ranks[0]["mean"], ranks[1]["mean"])  # DDP synced the (biased) average


if __name__ == "__main__":
    _check()
