"""Reentrant backward: a backward inside a backward, nested on the same thread up to depth 60, and checkpointing."""

# --8<-- [start:cube]
import torch


class Cube(torch.autograd.Function):
    """Recomputes its forward in backward and differentiates it there."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad((x**3).sum(), x)  # reentrant
        return grad * dx


x = torch.tensor([1.0, 2.0], requires_grad=True)
Cube.apply(x).sum().backward()
print(x.grad)  # 3 x^2
# > tensor([ 3., 12.])
# --8<-- [end:cube]

# --8<-- [start:checkpoint]
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

layer = nn.Linear(4, 4)
inp = torch.randn(2, 4)  # the usual case: the input needs no grad
out = checkpoint(layer, inp, use_reentrant=False)
out.sum().backward()
print(layer.weight.grad is not None)
# > True
# --8<-- [end:checkpoint]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import threading

    import pytest

    # depth: nested GraphTasks run on the caller's thread until MAX_DEPTH (60), then on a pooled thread
    threads = []

    class Nested(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t, depth):
            ctx.depth = depth
            return t.clone()

        @staticmethod
        def backward(ctx, grad):
            threads.append(threading.get_ident())
            if ctx.depth < 100:
                with torch.enable_grad():
                    leaf = torch.ones(1, requires_grad=True)
                    Nested.apply(leaf, ctx.depth + 1).sum().backward()
            return grad, None

    Nested.apply(torch.ones(1, requires_grad=True), 1).sum().backward()
    assert len(threads) == 100
    assert threads.count(threading.get_ident()) == 61
    assert len(set(threads)) == 2

    # reentrant checkpoint: no autograd.grad, and no parameter gradients when no input needs grad
    t = torch.randn(2, 4, requires_grad=True)
    incompatible = r"When use_reentrant=True, torch.utils.checkpoint is incompatible with \.grad\(\)"
    with pytest.raises(RuntimeError, match=incompatible):
        torch.autograd.grad(checkpoint(layer, t, use_reentrant=True).sum(), t)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        lost = checkpoint(layer, inp, use_reentrant=True)
    assert not lost.requires_grad
    # the non-reentrant version gives the plain gradient
    reference = nn.Linear(4, 4)
    reference.load_state_dict(layer.state_dict())
    reference(inp).sum().backward()
    torch.testing.assert_close(layer.weight.grad, reference.weight.grad)


if __name__ == "__main__":
    _check()
