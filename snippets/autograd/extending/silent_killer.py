"""Spot the Bug: a NumPy round-trip in forward cuts the graph; only the head trains."""

# --8<-- [start:buggy]
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        h = self.backbone(x)
        self.features = torch.from_numpy(h.detach().numpy())  # kept for logging
        return self.head(self.features)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 10), torch.randint(0, 2, (64,))
for _ in range(100):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print([name for name, p in model.named_parameters() if p.grad is None])
# > ['backbone.0.weight', 'backbone.0.bias']
# --8<-- [end:buggy]

BuggyNet = Net  # kept for the checks

# --8<-- [start:fixed]
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        h = self.backbone(x)
        # a detached tensor for logging: no copy, no sync, works on any device
        self.features = h.detach()
        return self.head(h)  # the graph continues through h


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 10), torch.randint(0, 2, (64,))
for _ in range(100):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print([name for name, p in model.named_parameters() if p.grad is None])
# > []
logged = model.features.cpu().numpy()  # convert only when you log
print(logged.shape)
# > (64, 32)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _train(net_class, steps=100):
    torch.manual_seed(0)
    net = net_class()
    start = {name: p.detach().clone() for name, p in net.named_parameters()}
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    data, labels = torch.randn(64, 10), torch.randint(0, 2, (64,))
    losses = []
    for _ in range(steps):
        out = net(data)
        loss = nn.functional.cross_entropy(out, labels)
        sgd.zero_grad()
        loss.backward()
        sgd.step()
        losses.append(loss.item())
    return net, start, losses, out


def _check() -> None:
    import pytest

    # The bug: no error, the loss still drops (the head learns), but the backbone never gets a gradient
    # and its weights stay exactly at their initial values.
    net, start, losses, out = _train(BuggyNet)
    assert net.backbone[0].weight.grad is None and net.backbone[0].bias.grad is None
    assert torch.equal(net.backbone[0].weight, start["backbone.0.weight"])
    assert not torch.equal(net.head.weight, start["head.weight"])
    assert losses[-1] < losses[0]
    # Why: the features re-enter as a fresh leaf with no history, so the graph stops at the head.
    assert net.features.is_leaf and net.features.grad_fn is None and not net.features.requires_grad
    reachable, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if hasattr(node, "variable"):
            reachable.add(id(node.variable))
        stack += [child for child, _ in node.next_functions if child is not None]
    assert reachable == {id(net.head.weight), id(net.head.bias)}
    # Without .detach() the same line raises, which is how .detach() usually ends up there.
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        net.backbone(torch.ones(1, 10)).numpy()

    # The fix: every parameter gets a gradient and moves, and the same budget reaches a lower loss.
    fixed, fixed_start, fixed_losses, _ = _train(Net)
    assert all(p.grad is not None for p in fixed.parameters())
    assert all(not torch.equal(p, fixed_start[name]) for name, p in fixed.named_parameters())
    assert fixed_losses[0] == pytest.approx(losses[0])  # same seed, same start
    assert fixed_losses[-1] < losses[-1]
    # The fixed forward keeps a detached tensor and makes no host conversion: it runs on the meta
    # device (no data, as a CUDA tensor has none on the host), where the old fix's .numpy() raises.
    assert isinstance(fixed.features, torch.Tensor) and not fixed.features.requires_grad
    meta_net = Net().to("meta")
    meta_out = meta_net(torch.randn(4, 10, device="meta"))
    assert meta_out.shape == (4, 2) and meta_net.features.device.type == "meta"
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        meta_net.features.numpy()  # what the old "fixed" forward called on every step
    buggy_meta = BuggyNet().to("meta")
    with pytest.raises(TypeError, match="to numpy"):
        buggy_meta(torch.randn(4, 10, device="meta"))


if __name__ == "__main__":
    _check()
