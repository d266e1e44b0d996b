"""Spot the bug: the optimizer is built on the old head before the swap, so the new head never trains."""

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
_found = _home is not None and Path(_home, "hub", "checkpoints", _name).is_file()
_temporary = None if _found else tempfile.TemporaryDirectory()  # deleted when the script exits
os.environ["TORCH_HOME"] = _home if _found else _temporary.name
_checkpoint = Path(os.environ["TORCH_HOME"], "hub", "checkpoints", _name)
_checkpoint.parent.mkdir(parents=True, exist_ok=True)
_found or torch.save(resnet18(weights=None).state_dict(), _checkpoint)

# --8<-- [start:buggy]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
for param in model.parameters():
    param.requires_grad = False
optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
model.fc = nn.Linear(model.fc.in_features, 2)
loss_fn = nn.CrossEntropyLoss()
x, y = torch.randn(4, 3, 64, 64), torch.tensor([0, 1, 0, 1])  # one batch

losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("loss moved:", losses[-1] != losses[0])
# > loss moved: False
# --8<-- [end:buggy]

buggy_model, buggy_optimizer, buggy_losses, buggy_x, buggy_y = model, optimizer, losses, x, y

# --8<-- [start:fixed]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(model.fc.in_features, 2)
# built after the swap: the NEW head
optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
x, y = torch.randn(4, 3, 64, 64), torch.tensor([0, 1, 0, 1])  # one batch

losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("loss moved:", losses[-1] != losses[0])
# > loss moved: True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    saved = torch.load(_checkpoint, weights_only=True)

    # The bug: no error, and the loss is bit-for-bit the same at every step.
    assert len(set(buggy_losses)) == 1
    # The optimizer holds the OLD head (512 -> 1000), which is no longer in the model ...
    held = [p for group in buggy_optimizer.param_groups for p in group["params"]]
    assert [tuple(p.shape) for p in held] == [(1000, 512), (1000,)]
    model_ids = {id(p) for p in buggy_model.parameters()}
    assert not any(id(p) in model_ids for p in held)
    # ... while the new head has a gradient (piling up: zero_grad only clears the old head) that nothing applies.
    head = buggy_model.fc
    assert head.weight.requires_grad and head.weight.grad is not None and head.weight.grad.abs().sum() > 0
    one_step = torch.autograd.grad(loss_fn(buggy_model(buggy_x), buggy_y), head.weight)[0]
    torch.testing.assert_close(head.weight.grad, 5 * one_step, rtol=1e-4, atol=1e-6)
    snapshot = head.weight.detach().clone()
    buggy_optimizer.step()
    assert torch.equal(head.weight, snapshot)
    # The frozen backbone did not change either (its parameters still equal the checkpoint): nothing trains.
    backbone = {n: p for n, p in buggy_model.named_parameters() if not n.startswith("fc.")}
    assert all(not p.requires_grad and p.grad is None and torch.equal(p, saved[n]) for n, p in backbone.items())
    # The old head's parameters were frozen too, so step() skipped them: not even they moved.
    assert torch.equal(held[0], saved["fc.weight"])

    # The fix: the optimizer holds the new head, the loss falls, the backbone's parameters are still the checkpoint's.
    assert [id(p) for p in optimizer.param_groups[0]["params"]] == [id(p) for p in model.fc.parameters()]
    assert losses[-1] < losses[0]
    assert all(torch.equal(p, saved[n]) for n, p in model.named_parameters() if not n.startswith("fc."))

    # The other order is loud, not silent: replace the head, THEN freeze everything, and nothing requires grad.
    wrong = resnet18(weights=ResNet18_Weights.DEFAULT)
    wrong.fc = nn.Linear(512, 2)
    for param in wrong.parameters():
        param.requires_grad = False
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.SGD([p for p in wrong.parameters() if p.requires_grad], lr=0.01)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        loss_fn(wrong(buggy_x), buggy_y).backward()


if __name__ == "__main__":
    _check()
