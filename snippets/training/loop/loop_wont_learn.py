"""Spot the bug: zero_grad() between backward() and step() wipes the fresh gradients, so nothing ever updates."""

# --8<-- [start:buggy]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(256, 8)
y = (x[:, 0] > 0).long()  # label: the sign of the first feature
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

start = loss_fn(model(x.to(device)), y.to(device)).item()
model.train()
for _ in range(5):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
end = loss_fn(model(x.to(device)), y.to(device)).item()
print("loss went down:", end < start)
# > loss went down: False
# --8<-- [end:buggy]

buggy_model, buggy_optimizer, buggy_start, buggy_end = model, optimizer, start, end

# --8<-- [start:fixed]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
x = torch.randn(256, 8)
y = (x[:, 0] > 0).long()  # label: the sign of the first feature
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

start = loss_fn(model(x.to(device)), y.to(device)).item()
model.train()
for _ in range(5):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        # clear the OLD grads, before this step's backward
        optimizer.zero_grad()
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
end = loss_fn(model(x.to(device)), y.to(device)).item()
print("loss went down:", end < start)
# > loss went down: True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The bug: the loss is bit-for-bit flat, because step() found grad None everywhere and skipped every parameter.
    assert buggy_end == buggy_start
    assert all(p.grad is None for p in buggy_model.parameters())
    before = [p.detach().clone() for p in buggy_model.parameters()]
    xb, yb = x[:32].to(device), y[:32].to(device)
    loss_fn(buggy_model(xb), yb).backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in buggy_model.parameters())  # grads existed...
    buggy_optimizer.zero_grad()
    buggy_optimizer.step()
    assert all(torch.equal(b, p) for b, p in zip(before, buggy_model.parameters(), strict=True))  # ...and were wiped
    # The fix learns: the loss on the whole set more than halves and accuracy is high.
    assert end < 0.5 * start
    with torch.no_grad():
        accuracy = (model(x.to(device)).argmax(dim=1) == y.to(device)).float().mean().item()
    assert accuracy > 0.9

    # A MISSING zero_grad is a different, less reliable symptom: grads pile up like runaway momentum.
    # The same setup on CPU: for some seeds the loss still falls, for others it blows up.
    def ratio_without_zero_grad(seed: int) -> float:
        torch.manual_seed(seed)
        xs = torch.randn(256, 8)
        ys = (xs[:, 0] > 0).long()
        net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
        opt = torch.optim.SGD(net.parameters(), lr=0.5)
        first = loss_fn(net(xs), ys).item()
        for _ in range(5):
            for xb, yb in DataLoader(TensorDataset(xs, ys), batch_size=32, shuffle=True):
                loss_fn(net(xb), yb).backward()
                opt.step()
        return loss_fn(net(xs), ys).item() / first

    assert ratio_without_zero_grad(8) < 0.7
    assert ratio_without_zero_grad(5) > 2.0


if __name__ == "__main__":
    _check()
