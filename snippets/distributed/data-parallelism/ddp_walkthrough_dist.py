"""Watch DDP ranks sync: one SGD step on two ranks, printing every number the step-through narrates."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
from torch.nn.parallel import DistributedDataParallel as DDP

# the global batch: one sample per rank
X = torch.tensor([[1.0, 2.0], [3.0, 1.0]])
Y = torch.tensor([[1.0], [0.0]])
LR = 0.125


def main() -> dict[str, torch.Tensor]:
    # "nccl" on GPUs
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    model = nn.Linear(2, 1, bias=False)
    start = [[1.0, -1.0]] if rank == 0 else [[0.5, 0.5]]
    with torch.no_grad():  # start the ranks from different weights, on purpose
        model.weight.copy_(torch.tensor(start))
    initial = model.weight.detach().clone()
    ddp = DDP(model)  # broadcasts rank 0's parameters and buffers to every rank
    wrapped = model.weight.detach().clone()

    # this rank's shard of the batch
    x, y = X[rank : rank + 1], Y[rank : rank + 1]
    prediction = ddp(x)
    loss = nn.functional.mse_loss(prediction, y)
    # what this rank alone sees
    local_loss = nn.functional.mse_loss(model(x), y)
    (local_grad,) = torch.autograd.grad(local_loss, model.weight)
    # the same gradient, then DDP's all-reduce averages it across ranks
    loss.backward()
    synced_grad = model.weight.grad.clone()
    # every rank steps its own optimizer
    torch.optim.SGD(model.parameters(), lr=LR).step()
    dist.destroy_process_group()
    return {
        "initial": initial,
        "wrapped": wrapped,
        "prediction": prediction.detach(),
        "loss": loss.detach(),
        "local_grad": local_grad,
        "synced_grad": synced_grad,
        "updated": model.weight.detach().clone(),
    }


if __name__ == "__main__":
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    # what `torchrun --standalone --nproc_per_node=2` does: {rank: result}
    ranks = elastic_launch(config, main)()
    for rank, r in sorted(ranks.items()):
        w, wrapped = r["initial"].tolist(), r["wrapped"].tolist()
        print(f"rank {rank}: w {w} -> after DDP(model) {wrapped}")
    for rank, r in sorted(ranks.items()):
        x, y, pred = X[rank].tolist(), Y[rank].item(), r["prediction"].item()
        print(f"rank {rank}: x {x}, y {y} -> prediction {pred}")
        loss, grad = r["loss"].item(), r["local_grad"].tolist()
        print(f"  loss {loss}, local grad {grad}")
    total = ranks[0]["local_grad"] + ranks[1]["local_grad"]
    mean = (total / 2).tolist()
    print(f"all-reduce: sum {total.tolist()} / 2 ranks = {mean}")
    for rank, r in sorted(ranks.items()):
        grad, w = r["synced_grad"].tolist(), r["updated"].tolist()
        print(f"rank {rank}: grad after backward {grad} -> w {w}")
    print(f"SGD lr {LR}: w = w - {LR} * grad")
# > rank 0: w [[1.0, -1.0]] -> after DDP(model) [[1.0, -1.0]]
# > rank 1: w [[0.5, 0.5]] -> after DDP(model) [[1.0, -1.0]]
# > rank 0: x [1.0, 2.0], y 1.0 -> prediction -1.0
# >   loss 4.0, local grad [[-4.0, -8.0]]
# > rank 1: x [3.0, 1.0], y 0.0 -> prediction 2.0
# >   loss 4.0, local grad [[12.0, 4.0]]
# > all-reduce: sum [[8.0, -4.0]] / 2 ranks = [[4.0, -2.0]]
# > rank 0: grad after backward [[4.0, -2.0]] -> w [[0.5, -0.75]]
# > rank 1: grad after backward [[4.0, -2.0]] -> w [[0.5, -0.75]]
# > SGD lr 0.125: w = w - 0.125 * grad
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # DDP's constructor replaced rank 1's weights with rank 0's: the ranks start equal.
    assert not torch.equal(ranks[0]["initial"], ranks[1]["initial"])
    assert torch.equal(ranks[0]["wrapped"], ranks[1]["wrapped"])
    assert torch.equal(ranks[1]["wrapped"], ranks[0]["initial"])
    # Backward left the AVERAGE of the local gradients on every rank, and identical weights after the step.
    assert not torch.equal(ranks[0]["local_grad"], ranks[1]["local_grad"])
    for r in ranks.values():
        torch.testing.assert_close(r["synced_grad"], (ranks[0]["local_grad"] + ranks[1]["local_grad"]) / 2)
    assert torch.equal(ranks[0]["updated"], ranks[1]["updated"])

    # The single-process reference: the same model on the concatenated batch gives the same gradient and step.
    reference = nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor([[1.0, -1.0]]))
    nn.functional.mse_loss(reference(X), Y).backward()
    assert torch.equal(reference.weight.grad, ranks[0]["synced_grad"])
    torch.optim.SGD(reference.parameters(), lr=LR).step()
    assert torch.equal(reference.weight.detach(), ranks[0]["updated"])
    assert reference.weight.tolist() == [[0.5, -0.75]]  # exact: lr = 1/8 keeps every number representable


if __name__ == "__main__":
    _check()
