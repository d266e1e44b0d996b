"""backward fills .grad only on leaves that require grad and are reachable from the output; the rest stay None."""

# --8<-- [start:demo]
import torch
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.used = nn.Linear(3, 1)
        self.unused = nn.Linear(3, 1)  # never called in forward

    def forward(self, x):
        h = self.body(x)
        return self.used(h), h


model = TwoHeads()
out, h = model(torch.ones(2, 3))
h.retain_grad()  # ask for this non-leaf's gradient
out.sum().backward()
print(model.body.weight.grad is None, model.unused.weight.grad is None)
# > False True
print(h.is_leaf, h.grad.shape)
# > False torch.Size([2, 3])
# --8<-- [end:demo]

demo_h = h  # kept for the checks

# --8<-- [start:not_a_leaf]
import torch

w = torch.randn(3, requires_grad=True) * 0.01  # the scaling makes w a non-leaf
(w * 2).sum().backward()
print(w.is_leaf, w.grad)  # also warns: the .grad of a non-leaf is not populated
# > False None
w = (torch.randn(3) * 0.01).requires_grad_()  # scale first, then mark: a leaf
(w * 2).sum().backward()
print(w.is_leaf, w.grad)
# > True tensor([2., 2., 2.])
# --8<-- [end:not_a_leaf]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Unused parameters get None, not zeros: their AccumulateGrad node is not reachable from the loss.
    assert model.unused.weight.grad is None and model.unused.bias.grad is None
    assert all(p.grad is not None for p in (*model.body.parameters(), *model.used.parameters()))
    # retain_grad() keeps the non-leaf's gradient: d(sum(used(h)))/dh = used.weight, on every row.
    torch.testing.assert_close(demo_h.grad, model.used.weight.detach().expand(2, 3))

    # Reading .grad of a non-leaf warns and returns None.
    scaled = torch.randn(3, requires_grad=True) * 0.01
    (scaled * 2).sum().backward()
    with pytest.warns(UserWarning, match=r"\.grad attribute of a Tensor that is not a leaf Tensor is being accessed"):
        assert scaled.grad is None
    with pytest.warns(UserWarning, match=r"use \.retain_grad\(\) on the non-leaf Tensor"):
        _ = scaled.grad
    assert w.is_leaf and torch.equal(w.grad, torch.full((3,), 2.0))

    # A leaf with requires_grad=False gets no gradient either, even though it takes part in the graph.
    data = torch.ones(3)
    param = torch.ones(3, requires_grad=True)
    (data * param).sum().backward()
    assert data.grad is None and torch.equal(param.grad, torch.ones(3))
    # Parameters that were used but whose branch contributes nothing still get a real (zero) gradient.
    gate = torch.ones(2, requires_grad=True)
    (gate * 0.0).sum().backward()
    assert torch.equal(gate.grad, torch.zeros(2))
    # None and zeros differ for optimizers: a parameter whose grad is None is skipped entirely, while
    # a zero gradient still gets AdamW's weight decay.
    skipped, zeroed = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    zeroed.grad = torch.zeros(2)
    torch.optim.AdamW([skipped, zeroed], lr=0.1, weight_decay=0.5).step()
    assert torch.equal(skipped.detach(), torch.ones(2))
    torch.testing.assert_close(zeroed.detach(), torch.full((2,), 0.95))
    # Module.to()/.double() convert parameters in place: they stay leaves.
    lin = torch.nn.Linear(2, 2).double()
    assert lin.weight.is_leaf
    # A tensor moved with Tensor.to/.double() after requires_grad=True is a non-leaf copy.
    moved = torch.ones(2, requires_grad=True).double()
    assert not moved.is_leaf and moved.grad_fn is not None


if __name__ == "__main__":
    _check()
