"""Epoch metrics: weight each batch mean by its size; the mean of batch means is wrong with a ragged last batch."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

y = torch.arange(10.0).unsqueeze(1)  # targets 0..9
loader = DataLoader(TensorDataset(y), batch_size=4)  # batches of 4, 4 and 2
loss_fn = nn.MSELoss()

batch_means, total, seen = [], 0.0, 0
for (yb,) in loader:
    pred = torch.zeros_like(yb)  # a model that always predicts 0
    loss = loss_fn(pred, yb)
    batch_means.append(loss.item())
    total += loss.item() * len(yb)  # undo the mean: this batch's sum
    seen += len(yb)
# every batch counts the same: the last 2 samples weigh double
print(sum(batch_means) / len(batch_means))
# > 35.833333333333336
print(total / seen)  # the real mean over the 10 samples
# > 28.5
print(loss_fn(torch.zeros(10, 1), y).item())
# > 28.5
# --8<-- [end:demo]

# --8<-- [start:keep_floats]
import torch
from torch import nn

model = nn.Linear(1, 1)
epoch_loss = 0.0
for _ in range(3):
    loss = model(torch.ones(4, 1)).pow(2).mean()
    loss.backward()  # frees this step's saved activations
    epoch_loss = epoch_loss + loss  # ...but keeps its graph nodes reachable
print(type(epoch_loss.grad_fn).__name__)
# > AddBackward0
running = 0.0
running += loss.item()  # a Python float: nothing kept alive
print(type(running).__name__)
# > float
# --8<-- [end:keep_floats]

# --8<-- [start:on_device]
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))


def epoch_mean(loss_sum: torch.Tensor, count: torch.Tensor) -> float:
    totals = torch.stack([loss_sum, count])
    if dist.is_initialized():  # under DDP: one collective for both
        dist.all_reduce(totals)  # sums every rank's [sum, count]
    return (totals[0] / totals[1]).item()  # the epoch's one host sync


model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(10, 4), torch.randn(10, 1))
loss_sum = torch.zeros((), device=device)
count = torch.zeros((), device=device)
for xb, yb in DataLoader(data, batch_size=4):
    xb, yb = xb.to(device), yb.to(device)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(xb), yb)
    loss.backward()
    optimizer.step()
    loss_sum += loss.detach() * len(xb)  # stays on the device: no sync
    count += len(xb)
mean = epoch_mean(loss_sum, count)
print(type(mean).__name__, count.item())
# > float 10.0
# --8<-- [end:on_device]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The three batch means are 3.5, 31.5 and 72.5; the weighted mean is the dataset mean (285 / 10).
    assert batch_means == [3.5, 31.5, 72.5]
    assert total / seen == 28.5 == sum(v * v for v in range(10)) / 10
    # With equal batches (drop_last or a divisible size) the naive mean would have been right.
    even = [loss_fn(torch.zeros(5, 1), yb).item() for (yb,) in DataLoader(TensorDataset(y), batch_size=5)]
    assert sum(even) / len(even) == 28.5
    # reduction="sum" then one division by the sample count is the other correct form.
    summed = sum(nn.MSELoss(reduction="sum")(torch.zeros_like(yb), yb).item() for (yb,) in loader)
    assert summed / len(loader.dataset) == 28.5
    # Accuracy is the same story: count correct predictions, divide once.
    hits = [torch.tensor([1, 1, 1, 1]), torch.tensor([0, 0, 0, 0]), torch.tensor([1, 1])]
    per_batch = sum(h.float().mean().item() for h in hits) / len(hits)
    overall = sum(h.sum().item() for h in hits) / sum(len(h) for h in hits)
    assert abs(per_batch - 2 / 3) < 1e-9 and overall == 0.6
    # `epoch_loss` (a tensor) still holds a graph; `running` is a plain float.
    assert epoch_loss.requires_grad and isinstance(running, float)
    seen_nodes, stack, means = set(), [epoch_loss.grad_fn], 0
    while stack:
        node = stack.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        means += type(node).__name__ == "MeanBackward0"
        stack.extend(fn for fn, _ in node.next_functions)
    assert means == 3  # all three iterations' graph nodes are still reachable
    # ...but backward() already freed what those graphs saved: a kept node's saved tensor is gone.
    # (The old claim "nothing from the epoch can be freed" fails here.)
    pow_nodes = []
    seen_nodes, stack = set(), [epoch_loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        if type(node).__name__ == "PowBackward0":
            pow_nodes.append(node)
        stack.extend(fn for fn, _ in node.next_functions)
    assert len(pow_nodes) == 3
    for node in pow_nodes:
        with pytest.raises(RuntimeError, match="after they have already been freed"):
            _ = node._saved_self

    # What piles up is the chain of nodes: it grows with every step, without bound.
    def chain_nodes(steps: int) -> int:
        net, total = nn.Linear(1, 1), 0.0
        for _ in range(steps):
            step_loss = net(torch.ones(4, 1)).pow(2).mean()
            step_loss.backward()
            total = total + step_loss
        found, todo = set(), [total.grad_fn]
        while todo:
            node = todo.pop()
            if node is not None and node not in found:
                found.add(node)
                todo.extend(fn for fn, _ in node.next_functions)
        return len(found)

    assert chain_nodes(10) - chain_nodes(5) == chain_nodes(20) - chain_nodes(15) > 0
    # Only nodes: the per-step loss tensors themselves are not kept alive by the chain.
    import gc
    import weakref

    net, kept, refs = nn.Linear(1, 1), 0.0, []
    for _ in range(3):
        step_loss = net(torch.ones(4, 1)).pow(2).mean()
        step_loss.backward()
        refs.append(weakref.ref(step_loss))
        kept = kept + step_loss
    del step_loss
    gc.collect()
    assert all(ref() is None for ref in refs) and kept.grad_fn is not None
    # The saved activations were freed step by step: a pack hook counts what was saved, and the
    # unpack count stays 0 because the graphs are never re-run.
    packed, unpacked = [], []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: packed.append(1) or t, lambda t: unpacked.append(1) or t
    ):
        lin, acc = nn.Linear(1, 1), 0.0
        for _ in range(4):
            step_loss = lin(torch.ones(4, 1)).pow(2).mean()
            step_loss.backward()
            acc = acc + step_loss
    assert len(packed) > 0 and len(unpacked) == len(packed)  # each backward unpacked (used) them once
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        acc.backward()  # the kept chain cannot be re-run: its saved tensors are gone

    # Device-side accumulation gives the same mean as per-step .item(), with one sync per epoch.
    torch.manual_seed(0)
    ref_model = nn.Linear(4, 1)
    dev_model = nn.Linear(4, 1)
    dev_model.load_state_dict(ref_model.state_dict())
    batches = list(DataLoader(data, batch_size=4))
    ref_opt = torch.optim.SGD(ref_model.parameters(), lr=0.1)
    dev_opt = torch.optim.SGD(dev_model.parameters(), lr=0.1)
    float_total, float_seen = 0.0, 0
    dev_sum, dev_count = torch.zeros(()), torch.zeros(())
    for xb, yb in batches:
        for net, opt in ((ref_model, ref_opt), (dev_model, dev_opt)):
            opt.zero_grad()
            step_loss = nn.functional.mse_loss(net(xb), yb)
            step_loss.backward()
            opt.step()
            if net is ref_model:
                float_total += step_loss.item() * len(xb)
                float_seen += len(xb)
            else:
                dev_sum += step_loss.detach() * len(xb)
                dev_count += len(xb)
    assert not dev_sum.requires_grad  # detach(): no graph kept
    assert abs(epoch_mean(dev_sum, dev_count) - float_total / float_seen) < 1e-6
    assert isinstance(mean, float) and count.item() == 10.0 and not loss_sum.requires_grad
    # Under a process group the [sum, count] pair is all-reduced once (a one-rank gloo group here;
    # the distributed pages run real multi-rank groups).
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        assert dist.is_initialized()
        assert abs(epoch_mean(dev_sum.clone(), dev_count.clone()) - float_total / float_seen) < 1e-6
    finally:
        dist.destroy_process_group()
    # Why sums and counts, not per-rank means: ranks with (sum 10, count 4) and (sum 2, count 2).
    rank_totals = torch.tensor([[10.0, 4.0], [2.0, 2.0]])
    reduced = rank_totals.sum(dim=0)  # what all_reduce(SUM) produces on every rank
    assert (reduced[0] / reduced[1]).item() == 2.0
    assert (rank_totals[:, 0] / rank_totals[:, 1]).mean().item() == 1.75  # mean of means: wrong

if __name__ == "__main__":
    _check()
