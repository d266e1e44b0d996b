"""Pipeline parallelism on 2 CPU ranks: two stages, 4 micro-batches, a 1F1B schedule; gradients match one process."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.distributed.pipelining import PipelineStage, Schedule1F1B

X = torch.arange(32.0).reshape(8, 4).sin()
Y = torch.arange(8.0).reshape(8, 1).cos()


def build() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8),
                         nn.ReLU(), nn.Linear(8, 1))


def main() -> dict:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world_size = dist.get_rank(), dist.get_world_size()
    # each rank keeps only its stage of the model
    part = build()[:2] if rank == 0 else build()[2:]
    stage = PipelineStage(part, rank, world_size, torch.device("cpu"))
    schedule = Schedule1F1B(stage, n_microbatches=4,
                            loss_fn=nn.functional.mse_loss)
    losses = []
    if rank == 0:
        # the first stage feeds the batch, split into 4 micro-batches of 2
        schedule.step(X)
    else:
        # the last stage computes the loss of each micro-batch
        schedule.step(target=Y, losses=losses)
    grads = [p.grad.clone() for p in part.parameters()]
    dist.destroy_process_group()
    return {"grads": grads, "losses": [loss.item() for loss in losses]}


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    ranks = elastic_launch(config, main)()
    reference = build()  # the whole model, one process, the whole batch
    loss = nn.functional.mse_loss(reference(X), Y)
    loss.backward()
    losses = ranks[1]["losses"]
    mean_is_loss = abs(sum(losses) / len(losses) - loss.item()) < 1e-6
    print("micro-batch losses:", len(losses),
          "| their mean is the batch loss:", mean_is_loss)
    # the stages' gradients, in model order
    pipelined = ranks[0]["grads"] + ranks[1]["grads"]
    pairs = zip(pipelined, reference.parameters(), strict=True)
    match = all(torch.allclose(g, p.grad, atol=1e-6) for g, p in pairs)
    print("gradients match:", match)
# > micro-batch losses: 4 | their mean is the batch loss: True
# > gradients match: True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Rank 0 holds the first Linear (weight, bias), rank 1 the other two: the model is split, not replicated.
    assert [g.shape for g in ranks[0]["grads"]] == [(8, 4), (8,)]
    assert [g.shape for g in ranks[1]["grads"]] == [(8, 8), (8,), (1, 8), (1,)]
    assert ranks[0]["losses"] == []  # only the last stage sees the loss
    for grad, param in zip(pipelined, reference.parameters(), strict=True):
        torch.testing.assert_close(grad, param.grad, atol=1e-6, rtol=1e-5)


if __name__ == "__main__":
    _check()
