"""C7 · Linear with a hand-written backward."""

# --8<-- [start:prompt]
import torch


class LinearFn(torch.autograd.Function):
    """LinearFn.apply(x, weight, bias) = x @ weightᵀ + bias.

    x: (..., in) with any number of leading dims; weight: (out, in);
    bias: (out,) or None. Write forward, setup_context (save only what
    backward needs) and backward, which returns the gradients for x,
    weight and bias, computing only those ctx.needs_input_grad asks for.
    Not allowed: F.linear, torch.addmm.
    """

    @staticmethod
    def forward(x, weight, bias):
        raise NotImplementedError

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = LinearFn

# --8<-- [start:wrong]
import torch


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias):
        out = x @ weight.T
        return out if bias is None else out + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias = inputs
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        g2d = grad_out.reshape(-1, grad_out.shape[-1])
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = grad_out @ weight
        if ctx.needs_input_grad[1]:
            gw = grad_out.transpose(-2, -1) @ x
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = g2d.sum(0)
        return gx, gw, gb
# --8<-- [end:wrong]

_wrong = LinearFn
WRONG_MESSAGE = "Sum over every leading dimension: grad_out.reshape(-1, out)ᵀ @ x.reshape(-1, in)"

# --8<-- [start:solution]
import torch


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias):
        out = x @ weight.T
        return out if bias is None else out + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias = inputs
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        g2d = grad_out.reshape(-1, grad_out.shape[-1])
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = grad_out @ weight
        if ctx.needs_input_grad[1]:
            gw = g2d.T @ x.reshape(-1, x.shape[-1])
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = g2d.sum(0)
        return gx, gw, gb
# --8<-- [end:solution]

_solution = LinearFn

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, largest_tensor, on_fake_gpu, randn = (
    _KIT[n]
    for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "largest_tensor", "on_fake_gpu", "randn")
)


def grade(LinearFn):
    import torch
    import torch.nn.functional as F

    step = checks("C7", "forward", "device", "values", "gradients", "memory", "gradcheck", "edges")

    def run(*args):
        with forbid("linear", "addmm", "_addmm_activation"):
            return call(LinearFn.apply, *args)

    def backward(out, grad):
        with forbid("linear", "addmm", "_addmm_activation"):
            call(out.backward, grad)

    x, w, b = randn(2, 5, 4, dtype=torch.float64), randn(3, 4, seed=1, dtype=torch.float64), randn(3, seed=2)
    with step("forward"):
        out = run(x, w, b.double())
        close(out, F.linear(x, w, b.double()), "the output for x (2, 5, 4)", atol=float("inf"))
    with step("device"):
        note = on_fake_gpu(LinearFn.apply, x, w, b)
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                args = [t.to(dev, dtype) for t in (x, w, b)]
                want = F.linear(*(t.double() for t in args)).to(dtype)
                close(run(*args), want, f"x (2, 5, 4), {dtype} on {dev}")
                close(run(args[0], args[1], None), F.linear(*(t.double() for t in args[:2])).to(dtype), "bias None")
    with step("gradients"):
        leaves = [t.clone().requires_grad_() for t in (x, w, b.double())]
        grad = randn(2, 5, 3, seed=3, dtype=torch.float64)
        backward(run(*leaves), grad)
        refs = [t.clone().requires_grad_() for t in (x, w, b.double())]
        F.linear(*refs).backward(grad)
        for leaf, ref, name in zip(leaves, refs, ("x", "weight", "bias"), strict=True):
            assert leaf.grad is not None, f"no gradient reached {name}: backward returns one per input"
            close(leaf.grad, ref.grad, f"the gradient for {name}, x (2, 5, 4)")
    with step("memory"):
        x3, w3 = randn(8, 2, 4, dtype=torch.float64), randn(16, 4, seed=1, dtype=torch.float64).requires_grad_()
        out = run(x3, w3, None)
        biggest = largest_tensor(lambda: backward(out, torch.ones_like(out)))
        assert biggest.numel() <= out.numel(), (
            f"your backward built a {tuple(biggest)} tensor for x (8, 2, 4) and weight (16, 4): a weight gradient "
            "per leading index, which autograd then summed for you. Sum over every leading dimension: "
            "grad_out.reshape(-1, out)ᵀ @ x.reshape(-1, in)"
        )
    with step("gradcheck"):
        gradcheck64(lambda x, w, b: LinearFn.apply(x, w, b), [x, w, b], names=["x", "weight", "bias"],
                    reference=lambda x, w, b: F.linear(x, w, b))
        gradcheck64(lambda x, w: LinearFn.apply(x, w, None), [x, w], names=["x", "weight"],
                    reference=lambda x, w: F.linear(x, w))
    with step("edges"):
        empty = torch.zeros(0, 4, dtype=torch.float64, requires_grad=True)
        weight = w.clone().requires_grad_()
        out = run(empty, weight, None)
        backward(out, torch.zeros(0, 3, dtype=torch.float64))
        close(weight.grad, torch.zeros_like(w), "the weight gradient for an empty batch (0, 4)")
        close(run(x.transpose(0, 1), w, None), F.linear(x.transpose(0, 1), w), "a non-contiguous x")
    where = ", ".join(map(str, devices()))
    return f"C7 passes: forward and all three gradients match F.linear on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C7 passes")
    with pytest.raises(AssertionError, match=r"^C7 · check 1/7 \(forward\): .*raised NotImplementedError"):
        grade(_stub)
    memory = r"^C7 · check 5/7 \(memory\): your backward built a \(8, 16, 4\) tensor .*"
    with pytest.raises(AssertionError, match=memory + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt's gradients are right, even for a 3-D x: autograd sums a gradient whose shape the
    # parameter's expands to (here (2, 3, 4) for a (3, 4) weight); gradcheck passes too
    x, w, b = (randn(*s, seed=i, dtype=torch.float64) for i, s in enumerate([(2, 5, 4), (3, 4), (3,)]))
    gradcheck64(_wrong.apply, [x, w, b], names=["x", "weight", "bias"])
    for method, args in ((_stub.setup_context, (None, (), None)), (_stub.backward, (None, None))):
        with pytest.raises(NotImplementedError):
            method(*args)


if __name__ == "__main__":
    _check()
