"""Freezing with requires_grad does not freeze BatchNorm statistics; eval() does. What goes into the optimizer."""

# ---- hidden set-up, never shown: pretrained weights without a download ----
# torchvision loads ResNet18_Weights.DEFAULT from $TORCH_HOME/hub/checkpoints/ when the file is there, and checks a
# hash only after downloading. The site runs offline, so a randomly initialized checkpoint stands in for the ImageNet
# one: the tests provide it (tests/plugin/offline_weights.py); run on its own, this file makes one in a temporary
# TORCH_HOME (never in your real one, where a random file would shadow the real download).
import os
import tempfile
from pathlib import Path

import torch
from torchvision.models import ResNet18_Weights, resnet18

_name = Path(ResNet18_Weights.DEFAULT.url).name
_home = os.environ.get("TORCH_HOME")
_found = (
    _home is not None and Path(_home, "hub", "checkpoints", _name).is_file()
)
_temporary = (
    None if _found else tempfile.TemporaryDirectory()
)  # deleted when the script exits
os.environ["TORCH_HOME"] = _home if _found else _temporary.name
_checkpoint = Path(os.environ["TORCH_HOME"], "hub", "checkpoints", _name)
_checkpoint.parent.mkdir(parents=True, exist_ok=True)
_found or torch.save(resnet18(weights=None).state_dict(), _checkpoint)

# --8<-- [start:stats_drift]
import torch
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
model.requires_grad_(False)  # "frozen": no parameter requires grad
imagenet_mean = model.bn1.running_mean.clone()
x = torch.randn(2, 3, 64, 64)

model.train()
with torch.no_grad():  # not even no_grad stops it
    model(x)
# the ImageNet statistics drifted
print(torch.equal(model.bn1.running_mean, imagenet_mean))
# > False

model = resnet18(weights=ResNet18_Weights.DEFAULT).requires_grad_(False)
model.eval()  # BatchNorm uses and keeps its running statistics
model(x)
print(torch.equal(model.bn1.running_mean, imagenet_mean))
# > True
# --8<-- [end:stats_drift]

drift_x, eval_model = x, model

# --8<-- [start:stale_grads]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
# holds every parameter
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()
optimizer.zero_grad(set_to_none=False)  # zeros, not None

model[0].requires_grad_(False)  # freeze the first layer mid-training
frozen = model[0].weight.detach().clone()
model(torch.randn(8, 4)).sum().backward()
optimizer.step()
# momentum moved the "frozen" layer: its grad is 0, not None
print(torch.equal(model[0].weight, frozen))
# > False
# --8<-- [end:stale_grads]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    saved = torch.load(_checkpoint, weights_only=True)

    # Train mode: every BatchNorm's running stats moved and its counter ticked, though nothing requires grad.
    drifted = (
        resnet18(weights=ResNet18_Weights.DEFAULT).requires_grad_(False).train()
    )
    with torch.no_grad():
        train_out = drifted(drift_x)
    bns = [m for m in drifted.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert len(bns) == 20 and all(
        m.num_batches_tracked.item() == 1 for m in bns
    )
    assert not torch.equal(drifted.bn1.running_mean, saved["bn1.running_mean"])
    # Train-mode outputs use the batch's statistics, so they differ from what the same model computes in eval.
    with torch.no_grad():
        assert not torch.allclose(train_out, drifted.eval()(drift_x), atol=1e-3)
    # Eval mode: every buffer still equals the checkpoint; and eval() still records a graph, switching off nothing.
    state = eval_model.state_dict()
    assert all(torch.equal(state[k], saved[k]) for k in saved)
    head = torch.nn.Linear(1000, 2)
    assert head(eval_model(drift_x)).requires_grad

    # Stale grads: the frozen layer has a ZERO grad (not None), so SGD's momentum buffer keeps moving it.
    assert model[0].weight.grad is not None and torch.equal(
        model[0].weight.grad, torch.zeros(4, 4)
    )
    assert not torch.equal(model[0].weight, frozen)
    # With set_to_none=True (the default), the frozen layer's grad is None and step() skips it entirely.
    net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    opt = torch.optim.SGD(
        net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01
    )
    net(torch.randn(8, 4)).sum().backward()
    opt.step()
    opt.zero_grad()
    net[0].requires_grad_(False)
    kept = net[0].weight.detach().clone()
    net(torch.randn(8, 4)).sum().backward()
    opt.step()
    assert net[0].weight.grad is None and torch.equal(net[0].weight, kept)
    # AdamW too skips parameters whose grad is None: no decoupled decay on them either.
    adamw_net = nn.Linear(4, 4).requires_grad_(False)
    before = adamw_net.weight.detach().clone()
    torch.optim.AdamW(adamw_net.parameters(), lr=0.1, weight_decay=0.5).step()
    assert torch.equal(adamw_net.weight, before)


if __name__ == "__main__":
    _check()
