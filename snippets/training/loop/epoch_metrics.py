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
print(sum(batch_means) / len(batch_means))  # every batch counts the same: the last 2 samples weigh double
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
    loss.backward()
    epoch_loss = epoch_loss + loss  # a tensor: every step's graph stays reachable from it
print(type(epoch_loss.grad_fn).__name__)
# > AddBackward0
running = 0.0
running += loss.item()  # a Python float: nothing kept alive
print(type(running).__name__)
# > float
# --8<-- [end:keep_floats]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
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
    assert means == 3  # all three iterations' graphs are still alive


if __name__ == "__main__":
    _check()
