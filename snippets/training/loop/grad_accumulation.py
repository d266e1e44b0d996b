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
# the same 32 samples as 4 micro-batches of 8
for xb, yb in zip(x.chunk(k), y.chunk(k), strict=True):
    # grads add up; / k turns the sum of means into one mean
    (loss_fn(model(xb), yb) / k).backward()
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
loader = DataLoader(
    TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8
)
accum_steps = 4  # effective batch = 8 * 4 = 32

optimizer.zero_grad()
for i, (xb, yb) in enumerate(loader):
    loss = loss_fn(model(xb), yb) / accum_steps
    loss.backward()
    # also flush a partial group at the end
    if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
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
    # BatchNorm normalises with 8-sample stats
    (nn.functional.mse_loss(model(xb), yb) / 4).backward()
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

    # What the missing / k does depends on the optimizer (k = 4 here).
    def step_delta(opt_cls: type, grad_scale: float, steps: int = 5, **kw: float) -> torch.Tensor:
        torch.manual_seed(1)
        w = nn.Parameter(torch.randn(6, dtype=torch.float64))
        start = w.detach().clone()
        gen = torch.Generator().manual_seed(2)
        opt = opt_cls([w], **kw)
        for _ in range(steps):
            w.grad = grad_scale * torch.randn(6, generator=gen, dtype=torch.float64)
            opt.step()
        return w.detach() - start

    # SGD: a 4x gradient is a 4x step, i.e. a 4x learning rate.
    torch.testing.assert_close(step_delta(torch.optim.SGD, 4.0, lr=0.1), 4 * step_delta(torch.optim.SGD, 1.0, lr=0.1))
    # Adam/AdamW: m_hat / sqrt(v_hat) absorbs a constant factor; the steps agree up to eps.
    for cls in (torch.optim.Adam, torch.optim.AdamW):
        torch.testing.assert_close(step_delta(cls, 4.0, lr=0.1), step_delta(cls, 1.0, lr=0.1), rtol=1e-6, atol=1e-9)
    # The real damage: clip_grad_norm_ sees a 4x norm. With max_norm tuned on the correct run (here
    # between the true norm and 4x it), the run without / 4 is clipped on a step the correct run
    # leaves alone, and every logged norm is 4x off.
    true_norm = reference.norm().item()
    max_norm = 2 * true_norm
    right = nn.Parameter(torch.zeros_like(reference))
    right.grad = reference.clone()
    wrong = nn.Parameter(torch.zeros_like(reference))
    wrong.grad = 4 * reference.clone()
    n_right = torch.nn.utils.clip_grad_norm_([right], max_norm=max_norm)
    n_wrong = torch.nn.utils.clip_grad_norm_([wrong], max_norm=max_norm)
    torch.testing.assert_close(n_wrong, 4 * n_right)
    torch.testing.assert_close(right.grad, reference)  # not clipped
    torch.testing.assert_close(wrong.grad.norm(), torch.tensor(max_norm), rtol=1e-5, atol=0)  # clipped by 1/2

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
