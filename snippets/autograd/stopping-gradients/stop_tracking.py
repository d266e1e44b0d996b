"""no_grad, inference_mode, detach and requires_grad_(False): what each one stops, and what its outputs can do later."""

# --8<-- [start:no_grad]
import torch

w = torch.ones(2, requires_grad=True)
with torch.no_grad():  # a mode for a block: nothing inside is recorded
    y = w * 2
print(y.requires_grad, y.grad_fn)
# > False None
# y is an ordinary tensor: later graphs may use it as a constant
(y * w).sum().backward()
print(w.grad)
# > tensor([2., 2.])
# --8<-- [end:no_grad]

# --8<-- [start:inference_mode]
import torch

w = torch.ones(2, requires_grad=True)
# no_grad, plus no version counters or view tracking
with torch.inference_mode():
    t = w * 2
print(t.requires_grad, t.is_inference())
# > False True
try:
    (t * w).sum().backward()  # mul must save t for w's gradient
except RuntimeError as err:
    print(str(err).split(".")[0])
# > Inference tensors cannot be saved for backward
# a clone made outside the mode is a normal tensor
(t.clone() * w).sum().backward()
print(w.grad)
# > tensor([2., 2.])
try:
    t.add_(1)
except RuntimeError as err:
    print(str(err).split(".")[0])
# > Inplace update to inference tensor outside InferenceMode is not allowed
print(t)  # on torch 2.14 the error comes after the write
# > tensor([3., 3.])
# --8<-- [end:inference_mode]

# --8<-- [start:detach]
import torch

w = torch.ones(2, requires_grad=True)
e = w.exp()  # exp saves its output for backward
d = e.detach()  # same storage, same version counter, no grad_fn
print(d.requires_grad, d.data_ptr() == e.data_ptr())
# > False True
d.zero_()  # an in-place write through the alias...
print(e._version)  # ...is counted on e as well
# > 1
try:
    e.sum().backward()
except RuntimeError as err:
    print(str(err).split(" has been ")[1].split(":")[0])
# > modified by an inplace operation
# --8<-- [end:detach]

# --8<-- [start:freeze]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
model[1].requires_grad_(False)  # freeze the second layer's parameters
model(torch.ones(1, 2)).sum().backward()
# grads still flow *through* it
print(model[0].weight.grad is None, model[1].weight.grad is None)
# > False True
frozen_first = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
# detach cuts the path to everything before it
h = frozen_first[0](torch.ones(1, 2)).detach()
frozen_first[1](h).sum().backward()
print(frozen_first[0].weight.grad is None, frozen_first[1].weight.grad is None)
# > True False
# --8<-- [end:freeze]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # no_grad: nothing recorded, nothing saved for backward (that is the memory it saves).
    packed = []
    a = torch.ones(3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        with torch.no_grad():
            a.exp()
        assert packed == []
        a.exp()
        assert len(packed) == 1  # outside the block exp saves its output
    # set_grad_enabled(flag) is the switchable form; no_grad and inference_mode also work as decorators.
    with torch.set_grad_enabled(False):
        assert not (a * 2).requires_grad
    assert torch.no_grad()(lambda x: x * 2)(a).requires_grad is False
    assert torch.inference_mode()(lambda x: x * 2)(a).is_inference()
    # no_grad outputs are normal tensors: they keep version counters, and are not inference tensors.
    assert not y.is_inference() and y._version == 0

    # inference_mode: the exact errors, the clone escape, and no version counter at all.
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (t * w).sum().backward()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode is not allowed"):
        t.mul_(2)
    assert t.tolist() == [6.0, 6.0]  # raised, but only after writing
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        _ = t._version
    # No view tracking either: a view of an inference tensor made in the mode is not recorded as a view.
    with torch.inference_mode():
        assert not t.view(2, 1)._is_view()
    with torch.no_grad():
        assert y.view(2, 1)._is_view()
    escaped = t.clone()
    assert not escaped.is_inference() and torch.equal(escaped, torch.full((2,), 6.0))
    # An op that saves nothing may still take an inference tensor (addition's backward needs no inputs).
    v = torch.ones(2, requires_grad=True)
    (t + v).sum().backward()
    assert torch.equal(v.grad, torch.ones(2))
    # In-place updates inside the mode are allowed.
    with torch.inference_mode():
        t.add_(1)
    assert t.tolist() == [7.0, 7.0]

    # detach: shared storage and a shared version counter; the saved output was overwritten, so backward refuses.
    assert d.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()
    assert e._version == d._version == 1
    assert torch.equal(e.detach(), torch.zeros(2))  # the write is visible through e
    with pytest.raises(RuntimeError, match=r"which is output 0 of Exp, is at version 1; expected version 0"):
        e.sum().backward()
    # The detached tensor is a leaf with no history; the rest of the graph still works.
    assert d.is_leaf and d.grad_fn is None
    x = torch.ones(2, requires_grad=True)
    s = x * 3
    (s + s.detach()).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]  # only the tracked branch contributes

    # requires_grad_(False) stops grads *into* those leaves; detach stops grads *through* the cut.
    assert model[1].weight.grad is None and model[1].bias.grad is None
    assert model[0].weight.grad is not None and model[0].bias.grad is not None
    assert frozen_first[0].weight.grad is None and frozen_first[0].bias.grad is None
    assert frozen_first[1].weight.grad is not None
    # A frozen model still computes: requires_grad=False turns off tracking, not computation.
    frozen = torch.nn.Linear(2, 1).requires_grad_(False)
    out = frozen(torch.ones(1, 2))
    assert out.shape == (1, 1) and not out.requires_grad
    # Frozen BatchNorm in train mode still updates its running statistics: freezing is not eval().
    bn = torch.nn.BatchNorm1d(2).requires_grad_(False)
    bn(torch.randn(4, 2))
    assert bn.num_batches_tracked.item() == 1 and not torch.equal(bn.running_mean, torch.zeros(2))
    # None of the four touches train/eval mode.
    assert model.training and frozen.training


if __name__ == "__main__":
    _check()
