"""model.eval() switches layer behaviour; torch.no_grad() switches off recording. Neither does the other's job."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
x = torch.randn(8, 4)
model.eval()
print(model(x).requires_grad)  # eval() still records a graph
# > True
model.train()
with torch.no_grad():
    a, b = model(x), model(x)
print(torch.equal(a, b))  # no_grad still applies dropout...
# > False
# ...and still updates BatchNorm's running stats
print(model[1].num_batches_tracked)
# > tensor(2)
# --8<-- [end:demo]

demo_model, demo_x, demo_a, demo_b = model, x, a, b  # kept for the checks

# --8<-- [start:validation]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
x = torch.randn(8, 4)
model.eval()  # layer behaviour: dropout off, BatchNorm uses its running stats
with torch.inference_mode():  # autograd: record nothing
    first, second = model(x), model(x)
model.train()  # back to training behaviour before the next training step
print(torch.equal(first, second), first.requires_grad)
# > True False
# --8<-- [end:validation]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # eval() changes no requires_grad flag and does not stop recording.
    demo_model.eval()
    out = demo_model(demo_x)
    assert out.grad_fn is not None and all(p.requires_grad for p in demo_model.parameters())
    # eval(): dropout is the identity and BatchNorm reads its running stats, so outputs repeat...
    assert torch.equal(out, demo_model(demo_x))
    assert demo_model[1].num_batches_tracked.item() == 2  # ...and the stats stay put
    # no_grad in train mode: random dropout masks and moving running stats.
    assert not torch.equal(demo_a, demo_b) and not demo_a.requires_grad
    assert not torch.equal(demo_model[1].running_mean, torch.zeros(4))
    # The validation pattern: deterministic, untracked, stats untouched, training mode restored.
    assert torch.equal(first, second) and first.is_inference()
    assert model[1].num_batches_tracked.item() == 0
    assert model.training and all(m.training for m in model.modules())

    # Frozen BatchNorm in fine-tuning: model.train() switches every submodule back to training, so
    # eval mode is what must be re-applied after each train() call; requires_grad_(False) is a flag
    # on the parameters and survives it.
    frozen = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4))
    frozen[1].eval()
    frozen[1].requires_grad_(False)
    frozen.train()
    assert frozen[1].training  # eval mode was undone
    assert not any(p.requires_grad for p in frozen[1].parameters())  # the flag was not
    # eval() alone freezes nothing: BatchNorm in eval mode still gets gradients for its affine
    # parameters (only its statistics are fixed).
    eval_bn = torch.nn.BatchNorm1d(4).eval()
    (eval_bn(torch.randn(8, 4)) * torch.randn(8, 4)).sum().backward()
    assert eval_bn.weight.grad is not None and eval_bn.weight.grad.abs().sum() > 0
    assert eval_bn.bias.grad is not None and eval_bn.num_batches_tracked.item() == 0
    frozen[1].eval()  # re-applied: the running stats stay put in a training step
    before = frozen[1].running_mean.clone()
    frozen(torch.randn(8, 4)).sum().backward()
    assert torch.equal(frozen[1].running_mean, before)
    assert frozen[0].weight.grad is not None and frozen[1].weight.grad is None


if __name__ == "__main__":
    _check()
