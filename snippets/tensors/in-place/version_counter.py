"""The version counter turns an in-place write to a saved tensor into an error."""

# --8<-- [start:demo]
import textwrap

import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.sigmoid(x)  # sigmoid saves its output: its backward is y * (1 - y)
print(y._version)
# > 0
y.mul_(2)  # an in-place write to a tensor autograd saved
print(y._version)
# > 1
try:
    y.sum().backward()
except RuntimeError as err:
    print(textwrap.fill(str(err).split(":")[0], 70))
# > one of the variables needed for gradient computation has been modified
# > by an inplace operation
# --8<-- [end:demo]

# --8<-- [start:allow_mutation]
import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = torch.sigmoid(x)
    y.mul_(2)  # the saved output is cloned before this write
    y.sum().backward()  # backward runs inside the same context
s = torch.sigmoid(x.detach())
print(torch.allclose(x.grad, 2 * s * (1 - s)))  # d/dx of 2 * sigmoid(x)
# > True
# --8<-- [end:allow_mutation]

allowed_x, allowed_y = x, y  # kept for the checks

# --8<-- [start:leaf]
import torch

w = torch.ones(3, requires_grad=True)
try:
    w.add_(1)  # a leaf that requires grad: refused at once
except RuntimeError as err:
    print(err)
# > a leaf Variable that requires grad is being used in an in-place operation.
with torch.no_grad():
    w.add_(1)  # as in an optimizer step: allowed, not recorded, but counted
print(w, w._version)
# > tensor([2., 2., 2.], requires_grad=True) 1
# --8<-- [end:leaf]

# --8<-- [start:relu]
import torch
from torch import nn

net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 1))
x = torch.randn(16, 4)
net(x).sum().backward()  # fine: ReLU's backward needs only its own output
inplace_grad = net[0].weight.grad.clone()
net.zero_grad()
net[1].inplace = False
net(x).sum().backward()
print(torch.equal(inplace_grad, net[0].weight.grad))
# > True
# --8<-- [end:relu]

# --8<-- [start:alias]
import torch

block = torch.nn.Linear(3, 3)
x = torch.randn(2, 3)
h = block(x)
identity = h  # a second name for the same tensor, not a copy
out = torch.relu_(h) + identity  # relu_ rewrote h, so "identity" changed too
# relu(h) + relu(h), not relu(h) + h
print(torch.equal(out, 2 * torch.relu(block(x))))
# > True
# --8<-- [end:alias]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    saved_modified = (
        "one of the variables needed for gradient computation has been modified by an inplace operation"
    )

    # The full message names the tensor, the op that saved it, and both versions.
    src = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    sig = torch.sigmoid(src)
    sig.mul_(2)
    with pytest.raises(
        RuntimeError, match=saved_modified + r".*output 0 of Sigmoid, is at version 1; expected version 0"
    ):
        sig.sum().backward()
    # Modifying a tensor nobody saved is fine: mul saves its inputs, not its output.
    a = torch.ones(3, requires_grad=True)
    b = a * 3
    b.add_(1)
    b.sum().backward()
    assert torch.equal(a.grad, torch.full((3,), 3.0))
    # A write into a view of a non-leaf is fine too: autograd rewrites the graph (CopySlices).
    c = torch.ones(3, requires_grad=True)
    d = c * 2
    d[0] = 0.0
    d.sum().backward()
    assert torch.equal(c.grad, torch.tensor([0.0, 2.0, 2.0]))
    # Views share the base's version counter.
    base = torch.zeros(4)
    view = base[:2]
    view.add_(1)
    assert base._version == view._version == 1

    # Leaves: refused, for the leaf and for any view of it; allowed under no_grad (and still counted).
    leaf = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        leaf.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        leaf[:2].add_(1)
    assert w._version == 1 and w.is_leaf and w.grad_fn is None
    # Because no_grad writes are counted, an optimizer step between forward and backward is caught.
    net2 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(net2.parameters(), lr=0.1)
    loss = net2(torch.ones(2, 3)).pow(2).sum()
    loss.backward(retain_graph=True)
    opt.step()  # rewrites the weights that the second Linear saved for backward
    with pytest.raises(RuntimeError, match=saved_modified):
        loss.backward()

    # allow_mutation_on_saved_tensors: the same write as the demo no longer raises, the mutation
    # happened (y is 2 * sigmoid), and the gradient is the right one for 2 * sigmoid(x).
    sig_ref = torch.sigmoid(allowed_x.detach())
    torch.testing.assert_close(allowed_y.detach(), 2 * sig_ref)
    torch.testing.assert_close(allowed_x.grad, 2 * sig_ref * (1 - sig_ref))
    ref_x = allowed_x.detach().clone().requires_grad_()
    (2 * torch.sigmoid(ref_x)).sum().backward()
    torch.testing.assert_close(allowed_x.grad, ref_x.grad)
    # Outside the context the same program raises (the demo), so the context is what changed.
    outside = torch.sigmoid(allowed_x.detach().clone().requires_grad_())
    outside.mul_(2)
    with pytest.raises(RuntimeError, match=saved_modified):
        outside.sum().backward()

    # inplace ReLU: same gradients as the out-of-place one (the demo), since its backward reads its output.
    assert torch.equal(inplace_grad, net[0].weight.grad)
    # It breaks when the tensor it overwrites was saved by the op before it, e.g. a sigmoid.
    s = torch.sigmoid(torch.randn(4, requires_grad=True))
    torch.relu_(s)
    with pytest.raises(RuntimeError, match=saved_modified):
        s.sum().backward()
    # The alias bug raises nothing: the version counter guards saved tensors, not the program's own names.
    pre_activation = block(x)  # x is the alias section's input
    assert torch.equal(out, 2 * torch.relu(pre_activation))
    intended = torch.relu(pre_activation) + pre_activation
    assert torch.equal(out, intended) == bool((pre_activation >= 0).all())  # wrong whenever any value was < 0
    assert identity is h


if __name__ == "__main__":
    _check()
