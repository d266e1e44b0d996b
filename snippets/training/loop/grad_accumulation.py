"""Gradient accumulation: loss / k over k micro-batches gives the big-batch gradient; BatchNorm breaks it."""

# --8<-- [start:equivalence]
import torch
from torch import nn

model = nn.Linear(4, 1)
loss_fn = nn.MSELoss()  # reduction="mean"
x, y = torch.randn(32, 4), torch.randn(32, 1)

loss_fn(model(x), y).backward()  # one batch of 32
big_batch = model.weight.grad.clone()
model.zero_grad()

k = 4
for xb, yb in zip(x.chunk(k), y.chunk(k), strict=True):  # the same 32 samples as 4 micro-batches of 8
    (loss_fn(model(xb), yb) / k).backward()  # grads add up; / k turns the sum of means into one mean
print(torch.allclose(model.weight.grad, big_batch, atol=1e-6))
# > True
# --8<-- [end:equivalence]

# --8<-- [start:loop]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
accum_steps = 4  # effective batch = 8 * 4 = 32

optimizer.zero_grad()
for i, (xb, yb) in enumerate(loader):
    loss = loss_fn(model(xb), yb) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(loader):  # also flush a partial group at the end
        optimizer.step()
        optimizer.zero_grad()
# --8<-- [end:loop]

# --8<-- [start:batchnorm]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 1))
x, y = torch.randn(32, 4), torch.randn(32, 1)

nn.functional.mse_loss(model(x), y).backward()
big_batch = model[0].weight.grad.clone()
model.zero_grad()
for xb, yb in zip(x.chunk(4), y.chunk(4), strict=True):
    (nn.functional.mse_loss(model(xb), yb) / 4).backward()  # BatchNorm normalises with 8-sample stats
print(torch.allclose(model[0].weight.grad, big_batch, atol=1e-6))
# > False
# --8<-- [end:batchnorm]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import copy

    # Without the / k the accumulated gradient is k times the big-batch gradient.
    lin = nn.Linear(4, 1)
    xs, ys = torch.randn(32, 4), torch.randn(32, 1)
    nn.functional.mse_loss(lin(xs), ys).backward()
    reference = lin.weight.grad.clone()
    lin.zero_grad()
    for xb, yb in zip(xs.chunk(4), ys.chunk(4), strict=True):
        nn.functional.mse_loss(lin(xb), yb).backward()
    torch.testing.assert_close(lin.weight.grad, 4 * reference)

    # Ragged micro-batches (20 + 12): dividing by k is wrong; weighting each mean by its share is right.
    lin.zero_grad()
    for xb, yb in zip(xs.split([20, 12]), ys.split([20, 12]), strict=True):
        (nn.functional.mse_loss(lin(xb), yb) / 2).backward()
    assert not torch.allclose(lin.weight.grad, reference, atol=1e-6)
    lin.zero_grad()
    for xb, yb in zip(xs.split([20, 12]), ys.split([20, 12]), strict=True):
        (nn.functional.mse_loss(lin(xb), yb) * len(xb) / len(xs)).backward()
    torch.testing.assert_close(lin.weight.grad, reference)

    # The shown loop: one accumulated step over 4 batches of 8 equals one SGD step on those 32 samples.
    torch.manual_seed(0)
    net = nn.Linear(4, 1)
    twin = copy.deepcopy(net)
    data = TensorDataset(torch.randn(48, 4), torch.randn(48, 1))  # 6 batches: one full group, one partial
    opt, twin_opt = torch.optim.SGD(net.parameters(), lr=0.1), torch.optim.SGD(twin.parameters(), lr=0.1)
    batches = list(DataLoader(data, batch_size=8))
    steps = 0
    opt.zero_grad()
    for i, (xb, yb) in enumerate(batches):
        (nn.functional.mse_loss(net(xb), yb) / 4).backward()
        if (i + 1) % 4 == 0 or i + 1 == len(batches):
            opt.step()
            opt.zero_grad()
            steps += 1
            xbig, ybig = data[:32] if steps == 1 else data[32:]
            twin_opt.zero_grad()
            (nn.functional.mse_loss(twin(xbig), ybig) * (1 if steps == 1 else len(xbig) / 32)).backward()
            twin_opt.step()  # step 2: the partial group's step is scaled by 16 / 32
            torch.testing.assert_close(net.weight, twin.weight)
    assert steps == 2  # the partial group (2 batches) was flushed too
    # The shown loop ran 64 / 8 = 8 batches: two full groups, so two optimizer steps and clean grads at the end.
    assert accum_steps == 4 and len(loader) == 8
    assert all(p.grad is None for p in optimizer.param_groups[0]["params"])

    # BatchNorm: the running statistics differ too (4 updates with micro-batch stats vs 1 with the full batch).
    bn = nn.BatchNorm1d(3)
    bn_acc = copy.deepcopy(bn)
    feats = torch.randn(32, 3) * 3 + 1
    bn(feats)
    for chunk in feats.chunk(4):
        bn_acc(chunk)
    assert not torch.allclose(bn.running_mean, bn_acc.running_mean)
    assert bn.num_batches_tracked.item() == 1 and bn_acc.num_batches_tracked.item() == 4


if __name__ == "__main__":
    _check()
