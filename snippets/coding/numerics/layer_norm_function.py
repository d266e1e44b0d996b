"""C3 · LayerNorm forward and backward as an `autograd.Function`."""

# --8<-- [start:prompt]
import torch


class LayerNormFn(torch.autograd.Function):
    """LayerNormFn.apply(x, weight, bias, eps) normalises the last dim:
    y = (x - mean) / sqrt(var + eps) * weight + bias, var biased (÷ D).

    x: (..., D), any number of leading dims; weight, bias: (D,); eps: a
    float. Write forward, setup_context (save only what backward needs)
    and backward, which returns the gradients for x, weight and bias, and
    None for eps. The output has x's dtype and device.
    Not allowed: F.layer_norm and its aten ops.
    """

    @staticmethod
    def forward(x, weight, bias, eps):
        raise NotImplementedError

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = LayerNormFn

# --8<-- [start:wrong]
import torch


def normalise(x, eps):
    centred = x - x.mean(-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + eps)
    return centred * rstd, rstd


class LayerNormFn(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias, eps):
        return normalise(x, eps)[0] * weight + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias, eps = inputs
        ctx.save_for_backward(x, weight)
        ctx.eps = eps

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        xhat, rstd = normalise(x, ctx.eps)  # recomputed: x is saved anyway
        lead = tuple(range(x.dim() - 1))
        g = grad_out * weight
        gx = g * rstd
        return gx, (grad_out * xhat).sum(lead), grad_out.sum(lead), None
# --8<-- [end:wrong]

_wrong, _wrong_normalise = LayerNormFn, normalise
WRONG_MESSAGE = (
    "the mean and the variance are functions of x too: "
    "differentiate through both, not only through the division"
)

# --8<-- [start:solution]
import torch


def normalise(x, eps):
    centred = x - x.mean(-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + eps)
    return centred * rstd, rstd


class LayerNormFn(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias, eps):
        return normalise(x, eps)[0] * weight + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias, eps = inputs
        ctx.save_for_backward(x, weight)
        ctx.eps = eps

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        xhat, rstd = normalise(x, ctx.eps)  # recomputed: x is saved anyway
        lead = tuple(range(x.dim() - 1))
        g = grad_out * weight
        gx = g - g.mean(-1, keepdim=True)
        gx = (gx - xhat * (g * xhat).mean(-1, keepdim=True)) * rstd
        return gx, (grad_out * xhat).sum(lead), grad_out.sum(lead), None
# --8<-- [end:solution]

_solution = LayerNormFn

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(LayerNormFn):
    import torch
    import torch.nn.functional as F

    step = checks("C3", "forward", "device", "values", "gradients", "gradcheck", "edges")
    banned = ("layer_norm", "native_layer_norm", "native_layer_norm_backward")

    def run(x, w, b, eps=1e-5):
        with forbid(*banned):
            return call(LayerNormFn.apply, x, w, b, eps)

    def grads(fn, x, w, b, grad, eps=1e-5, ban=banned):
        leaves = [t.detach().clone().requires_grad_() for t in (x, w, b)]
        with forbid(*ban):
            out = fn(*leaves, eps)
            call(out.backward, grad)
        return [t.grad for t in leaves]

    def reference(x, w, b, eps=1e-5):
        return F.layer_norm(x.double(), x.shape[-1:], w.double(), b.double(), eps).to(x.dtype)

    def torch_ln(x, w, b, eps):
        return F.layer_norm(x, x.shape[-1:], w, b, eps)

    def through(x, w, b):
        return LayerNormFn.apply(x, w, b, 1e-5)

    class Ctx:  # the autograd engine cannot run on fake CUDA tensors: call the three methods by hand
        needs_input_grad = (True, True, True, False)

        def save_for_backward(self, *tensors):
            self.saved_tensors = tensors

    def by_hand(x, w, b):
        ctx, out = Ctx(), LayerNormFn.forward(x, w, b, 1e-5)
        LayerNormFn.setup_context(ctx, (x, w, b, 1e-5), out)
        return out, LayerNormFn.backward(ctx, torch.ones_like(out))

    f64 = torch.float64
    x, w, b = randn(2, 3, 8, dtype=f64), randn(8, seed=1, dtype=f64), randn(8, seed=2, dtype=f64)
    with step("forward"):
        out = run(x, w, b)
        close(out, reference(x, w, b), "the output for x (2, 3, 8)", atol=float("inf"))
    with step("device"):
        note = on_fake_gpu(by_hand, x, w, b)
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                args = [t.to(dev, dtype) for t in (x, w, b)]
                close(run(*args), reference(*args), f"x (2, 3, 8), {dtype} on {dev}")
        wide = x.transpose(0, 1)
        close(run(wide, w, b), reference(wide, w, b), "a non-contiguous x (3, 2, 8)")
    with step("gradients"):
        out = run(x.clone().requires_grad_(), w, b)
        mine = getattr(out.grad_fn, "_forward_cls", None) is LayerNormFn
        assert mine, f"the output's grad_fn is {out.grad_fn}, not your Function's backward: return from forward"
        grad = randn(2, 3, 8, seed=3, dtype=torch.float64)
        got, want = grads(LayerNormFn.apply, x, w, b, grad), grads(torch_ln, x, w, b, grad, ban=())
        for mine, name in zip(got, ("x", "weight", "bias"), strict=True):
            assert mine is not None, f"no gradient reached {name}: backward returns one per input, None for eps"
        constants = grad * w / (x.var(-1, correction=0, keepdim=True) + 1e-5).sqrt()
        assert not torch.allclose(got[0], constants), (
            "your x gradient treats the mean and the variance as constants, but the mean and the variance are "
            "functions of x too: differentiate through both, not only through the division"
        )
        for mine, ref, name in zip(got, want, ("x", "weight", "bias"), strict=True):
            close(mine, ref, f"the gradient for {name}, x (2, 3, 8), a random grad_output")
    with step("gradcheck"):
        small = randn(2, 2, 4, seed=4, dtype=torch.float64)
        gradcheck64(through, [small, w[:4], b[:4]], names=["x", "weight", "bias"],
                    reference=lambda x, w, b: F.layer_norm(x, (4,), w, b, 1e-5))
    with step("edges"):
        one = randn(4, 1, seed=5, dtype=torch.float64)
        close(run(one, w[:1], b[:1]), b[:1].expand(4, 1), "D=1 (the output is the bias)")
        flat = torch.full((2, 8), 3.0, dtype=torch.float64)
        out = run(flat, w, b)
        assert out.isfinite().all(), "a constant row gave a non-finite output: eps goes inside the square root"
        close(out, reference(flat, w, b), "a constant row")
        got, want = grads(LayerNormFn.apply, flat, w, b, grad[0, :2]), grads(torch_ln, flat, w, b, grad[0, :2], ban=())
        close(got[0], want[0], "the x gradient for a constant row")
        big = randn(4, 8, seed=6) + 1e4
        close(run(big, w.float(), b.float()), reference(big, w, b), "float32 inputs near 1e4 (tolerance 1e-2)", 1e-2)
        empty = torch.zeros(0, 8, dtype=torch.float64)
        got = grads(LayerNormFn.apply, empty, w, b, empty)
        close(got[1], torch.zeros_like(w), "the weight gradient for an empty batch (0, 8)")
    where = ", ".join(map(str, devices()))
    return f"C3 passes: forward and all three gradients match F.layer_norm on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch.nn.functional as F

    assert grade(_solution).startswith("C3 passes")
    with pytest.raises(AssertionError, match=r"^C3 · check 1/6 \(forward\): .*raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C3 · check 4/6 \(gradients\): .*" + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit tests: its forward is right, and so are its weight and bias
    # gradients; only x's gradient is wrong
    x, w, b = (randn(*s, seed=i, dtype=torch.float64) for i, s in enumerate([(2, 5), (5,), (5,)]))
    close(_wrong.apply(x, w, b, 1e-5), F.layer_norm(x, (5,), w, b))
    for got, want in zip(_wrong_normalise(x, 1e-5), normalise(x, 1e-5), strict=True):  # the same helper
        close(got, want)
    leaves = [[t.clone().requires_grad_() for t in (x, w, b)] for _ in range(2)]
    grad = randn(2, 5, seed=7, dtype=torch.float64)
    _wrong.apply(*leaves[0], 1e-5).backward(grad)
    F.layer_norm(leaves[1][0], (5,), *leaves[1][1:]).backward(grad)
    for mine, ref in zip(leaves[0][1:], leaves[1][1:], strict=True):
        close(mine.grad, ref.grad)
    assert not torch.allclose(leaves[0][0].grad, leaves[1][0].grad)
    # with a weight of ones, `out.sum().backward()` gives a zero x gradient: a backward returning zeros passes it
    leaf = x.clone().requires_grad_()
    _solution.apply(leaf, torch.ones(5, dtype=torch.float64), b, 1e-5).sum().backward()
    close(leaf.grad, torch.zeros_like(x), atol=1e-12)
    # the follow-up: this backward is made of differentiable ops, so double backward works
    small = [randn(*s, seed=i, dtype=torch.float64).requires_grad_() for i, s in enumerate([(2, 3), (3,), (3,)])]
    assert torch.autograd.gradgradcheck(lambda x, w, b: _solution.apply(x, w, b, 1e-5), small)
    for method, args in ((_stub.setup_context, (None, (), None)), (_stub.backward, (None, None))):
        with pytest.raises(NotImplementedError):
            method(*args)

    class TwoMoments(_solution):  # var = E[x²] - E[x]²: cancels catastrophically for large inputs
        @staticmethod
        def forward(x, weight, bias, eps):
            mean = x.mean(-1, keepdim=True)
            var = x.pow(2).mean(-1, keepdim=True) - mean.pow(2)
            return (x - mean) * torch.rsqrt(var + eps) * weight + bias

    with pytest.raises(AssertionError, match=r"check 6/6 \(edges\): float32 inputs near 1e4"):
        grade(TwoMoments)

    class NoneForEps(_solution):  # three gradients for four inputs
        @staticmethod
        def backward(ctx, grad_out):
            return _solution.backward(ctx, grad_out)[:3]

    with pytest.raises(AssertionError, match=r"check 4/6 \(gradients\): .*raised RuntimeError"):
        grade(NoneForEps)


if __name__ == "__main__":
    _check()
