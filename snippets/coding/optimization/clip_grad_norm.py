"""C27 · Clip gradients by global norm."""

# --8<-- [start:prompt]
import torch


def clip_grad_norm(parameters, max_norm, norm_type=2.0):
    """Clip gradients by their global norm, as clip_grad_norm_ does.

    The total norm is the norm of all gradients together (norm_type 2.0 or
    inf). Scale every .grad in place by min(1, max_norm / (total + 1e-6));
    skip parameters without a grad. Return the total norm before clipping
    as a 0-dim tensor (tensor(0.) when no parameter has a grad).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = clip_grad_norm


# --8<-- [start:wrong]
import torch


def clip_grad_norm(parameters, max_norm, norm_type=2.0):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    total = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    for g, norm in zip(grads, norms, strict=True):
        coef = (max_norm / (norm + 1e-6)).clamp(max=1.0)
        g.mul_(coef.to(g.dtype))
    return total
# --8<-- [end:wrong]


_wrong = clip_grad_norm
WRONG_MESSAGE = 'you clipped each gradient to norm 1 separately'


# --8<-- [start:solution]
import torch


def clip_grad_norm(parameters, max_norm, norm_type=2.0):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    total = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))
    return total
# --8<-- [end:solution]


_solution = clip_grad_norm


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, forbid_files = (_KIT[n] for n in ("devices", "call", "close", "forbid_files"))


def grade(clip_grad_norm):
    import torch
    from torch.nn.utils import clip_grad_norm_

    def fail(what, msg):
        raise AssertionError(f"C27 · {what}: {msg}")

    def params(grads, dev):
        out = []
        for g in grads:
            p = torch.nn.Parameter(torch.zeros(1, device=dev) if g is None else torch.zeros_like(g, device=dev))
            p.grad = None if g is None else g.to(dev).clone()
            out.append(p)
        return out

    def compare(grads, max_norm, norm_type, dev, what):
        mine, ref = params(grads, dev), params(grads, dev)
        with forbid_files("torch/nn/utils/clip_grad.py"):
            total = call(clip_grad_norm, iter(mine), max_norm, norm_type)
        if what == "grads 3 and 4" and abs(mine[0].grad.item() - mine[1].grad.item()) < 1e-3:
            fail("global norm", "you clipped each gradient to norm 1 separately. The global norm is "
                 "sqrt(3² + 4²) = 5, so every gradient should be scaled by the same 1/5; per-tensor clipping "
                 "changes the update's direction")
        if what == "all-zero gradients" and mine[0].grad.isnan().any():
            fail("zeros", "all-zero gradients became NaN: 1e-6 in the denominator avoids 0/0")
        want = clip_grad_norm_(ref, max_norm, norm_type)
        if not torch.is_tensor(total) or total.dim() != 0:
            fail(what, f"return the total norm as a 0-dim tensor; got {total!r}")
        close(total.double(), want.double(), f"{what}: the returned total norm", 1e-6, 1e-6)
        for i, (a, b) in enumerate(zip(mine, ref, strict=False)):
            if b.grad is None:
                if a.grad is not None:
                    fail(what, f"parameter {i} had no grad and must keep none")
                continue
            close(a.grad, b.grad, f"{what}: the gradient of parameter {i}", 1e-6, 1e-6)
        return mine

    f64 = dict(dtype=torch.float64)
    for dev in devices():
        compare([torch.tensor([3.0], **f64), torch.tensor([4.0], **f64)], 1.0, 2.0, dev, "grads 3 and 4")
        gen = torch.Generator().manual_seed(0)
        grads = [torch.randn(4, 3, generator=gen, **f64), None, torch.randn(5, generator=gen, **f64)]
        compare(grads, 1.0, 2.0, dev, "three parameters, one without a grad")
        compare(grads, 0.5, float("inf"), dev, "norm_type=inf")
        small = params(grads, dev)
        before = [None if p.grad is None else p.grad.clone() for p in small]
        call(clip_grad_norm, small, 100.0)
        if any(b is not None and not torch.equal(p.grad, b) for p, b in zip(small, before, strict=False)):
            fail("below max_norm", "a total norm below max_norm must leave the gradients bit-identical")
        compare([torch.zeros(3, **f64)], 1.0, 2.0, dev, "all-zero gradients")
        compare([torch.randn(3, generator=gen), torch.randn(4, generator=gen).bfloat16()], 1.0, 2.0, dev,
                "float32 and bfloat16 gradients")
        empty = call(clip_grad_norm, [], 1.0)
        if not torch.is_tensor(empty) or empty.item() != 0:
            fail("empty", f"no gradients: return tensor(0.); got {empty!r}")
    return "C27 passes: equals clip_grad_norm_ (global 2-norm and inf, None grads, zeros, mixed dtypes, in place)"


def _check():
    import re

    import pytest
    import torch

    assert grade(_solution).startswith("C27 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # torch's clip_grad_norm_ under another name is refused
    from torch.nn.utils import clip_grad_norm_ as renamed

    with pytest.raises(AssertionError, match="calls torch/nn/utils/clip_grad.py"):
        grade(lambda params, max_norm, norm_type=2.0: renamed(list(params), max_norm, norm_type))
    assert _wrong([], 1.0).item() == 0  # the wrong attempt's only bug is per-tensor clipping

    # mutants of the reference, one per remaining failure, each with its exact message
    def rescale(eps):  # scales by min(total, max_norm) / (total + eps): never exactly 1
        def attempt(parameters, max_norm, norm_type=2.0):
            grads = [p.grad for p in parameters if p.grad is not None]
            norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
            total = torch.linalg.vector_norm(norms, norm_type)
            for g in grads:
                g.mul_((total.clamp(max=max_norm) / (total + eps)).to(g.dtype))
            return total

        return attempt

    def fill_missing(parameters, max_norm, norm_type=2.0):  # gives a parameter without a grad zeros
        parameters = list(parameters)
        for p in parameters:
            p.grad = torch.zeros_like(p) if p.grad is None else p.grad
        return _solution(parameters, max_norm, norm_type)

    def float_or_none(parameters, max_norm, norm_type=2.0):  # a Python float, and None for no gradients
        parameters = list(parameters)
        return _solution(parameters, max_norm, norm_type).item() if parameters else None

    for attempt, message in [
        (lambda *args: float_or_none(*args) or 0.0, r"^C27 · grads 3 and 4: return the total norm as a 0-dim te"),
        (fill_missing, r"^C27 · three parameters, one without a grad: parameter 1 had no grad and must keep none$"),
        (rescale(1e-6), r"^C27 · below max_norm: a total norm below max_norm must leave the gradients bit-identical"),
        (rescale(0.0), r"^C27 · zeros: all-zero gradients became NaN: 1e-6 in the denominator avoids 0/0$"),
        (lambda *args: _solution(*args) if args[0] else float_or_none(*args), r"^C27 · empty: no gradients: return"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
