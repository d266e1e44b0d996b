"""C2 · Cross-entropy with `ignore_index` and label smoothing."""

# --8<-- [start:prompt]
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0,
                  reduction="mean"):
    """F.cross_entropy for logits (N, C) and class indices target (N,).

    Targets equal to ignore_index contribute nothing, and "mean" divides by
    the number of the others. Smoothing as torch does it: the target gets
    1 - eps, and eps is spread over all C classes (the target included).
    reduction: "mean", "sum" or "none" ((N,), 0 at ignored rows). If every
    target is ignored, "mean" returns 0 (torch returns NaN) with zero
    gradients. Not allowed: F.cross_entropy, F.nll_loss (log_softmax is).
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = cross_entropy

# --8<-- [start:wrong]
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0,
                  reduction="mean"):
    lp = logits.log_softmax(dim=-1)
    valid = target != ignore_index
    picked = lp.gather(-1, target.masked_fill(~valid, 0)[:, None])[:, 0]
    eps = label_smoothing
    loss = -(1 - eps) * picked - eps * lp.mean(dim=-1)
    loss = loss.masked_fill(~valid, 0.0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.mean()
# --8<-- [end:wrong]

_wrong = cross_entropy
WRONG_MESSAGE = "divide by the count of non-ignored targets"

# --8<-- [start:solution]
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0,
                  reduction="mean"):
    lp = logits.log_softmax(dim=-1)
    valid = target != ignore_index
    picked = lp.gather(-1, target.masked_fill(~valid, 0)[:, None])[:, 0]
    eps = label_smoothing
    loss = -(1 - eps) * picked - eps * lp.mean(dim=-1)
    loss = loss.masked_fill(~valid, 0.0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / valid.sum().clamp(min=1)
# --8<-- [end:solution]

_solution = cross_entropy

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(cross_entropy):
    import torch
    import torch.nn.functional as F

    step = checks("C2", "call", "device", "shape", "ignore_index", "values", "extremes", "all ignored", "gradients")
    banned = ("cross_entropy", "cross_entropy_loss", "nll_loss", "nll_loss_nd", "nll_loss2d", "nll_loss_forward")

    def run(*args, **kwargs):
        with forbid(*banned):
            return call(cross_entropy, *args, **kwargs)

    def reference(logits, target, **kwargs):
        return F.cross_entropy(logits.double(), target, **kwargs).to(logits.dtype)

    logits = randn(6, 4, dtype=torch.float64)
    target = torch.tensor([0, 3, -100, 1, -100, 2])
    with step("call"):
        out = run(logits, target)
    with step("device"):
        note = on_fake_gpu(cross_entropy, logits, target, label_smoothing=0.1)
    with step("shape"):
        close(out, reference(logits, target), "the mean loss", atol=float("inf"))
    with step("ignore_index"):
        got, want = run(logits, target), reference(logits, target)
        over_all = reference(logits, target, reduction="sum") / len(target)
        assert not torch.allclose(got, over_all), (
            f"the mean divided by all {len(target)} targets, 2 of them ignore_index: "
            "divide by the count of non-ignored targets"
        )
        close(got, want, "the mean with 2 of 6 targets ignored")
        zero = torch.tensor([0, 3, 0, 1, 2, 2])
        close(run(logits, zero, ignore_index=0), reference(logits, zero, ignore_index=0), "ignore_index=0")
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                x, t = logits.to(dev, dtype), target.to(dev)
                for eps in (0.0, 0.1):
                    for red in ("mean", "sum", "none"):
                        want = reference(x, t, label_smoothing=eps, reduction=red)
                        what = f"label_smoothing={eps}, reduction={red!r}, {dtype} on {dev}"
                        close(run(x, t, label_smoothing=eps, reduction=red), want, what)
    with step("extremes"):
        big = torch.tensor([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0]])
        t = torch.tensor([2, 0])
        close(run(big, t), reference(big, t), "logits of ±1e4 (the target at -1e4)")
        one = randn(1, 5, dtype=torch.float64)
        close(run(one, torch.tensor([4])), reference(one, torch.tensor([4])), "N=1")
    with step("all ignored"):
        leaf = logits.clone().requires_grad_()
        out = run(leaf, torch.full((6,), -100))
        assert not out.isnan(), "every target is ignored and the mean is NaN (0/0): clamp the count at 1"
        close(out, torch.zeros((), dtype=torch.float64), "every target ignored")
        call(out.backward)
        close(leaf.grad, torch.zeros_like(leaf), "the gradient when every target is ignored")
    with step("gradients"):
        x, t = randn(4, 3, dtype=torch.float64), torch.tensor([2, -100, 0, 1])
        for eps in (0.0, 0.1):
            gradcheck64(lambda x, e=eps: cross_entropy(x, t, label_smoothing=e), [x], names=["logits"],
                        reference=lambda x, e=eps: F.cross_entropy(x, t, label_smoothing=e))
    where = ", ".join(map(str, devices()))
    return f"C2 passes: matches F.cross_entropy (ignore_index, smoothing, reductions) on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch.nn.functional as F

    assert grade(_solution).startswith("C2 passes")
    with pytest.raises(AssertionError, match=r"^C2 · check 1/8 \(call\): cross_entropy raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C2 · check 4/8 \(ignore_index\): the mean divided by all 6 targets, "
                       r"2 of them ignore_index: " + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: no target ignored
    x, t = randn(5, 4), torch.tensor([0, 1, 2, 3, 0])
    close(_wrong(x, t), F.cross_entropy(x, t))
    # and its "sum" and "none" are right even with ignored targets: only the mean divides by the wrong count
    t = torch.tensor([0, -100, 2, 3, -100])
    for reduction in ("sum", "none"):
        close(_wrong(x, t, reduction=reduction), F.cross_entropy(x, t, reduction=reduction))
    # torch's own mean over all-ignored targets is NaN; "sum" is 0
    assert F.cross_entropy(x, torch.full((5,), -100)).isnan()
    assert F.cross_entropy(x, torch.full((5,), -100), reduction="sum") == 0

    def smoothing_over_others(logits, target, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        lp = logits.log_softmax(-1)
        C, eps = logits.shape[-1], label_smoothing
        soft = torch.full_like(lp, eps / (C - 1)).scatter(-1, target.clamp(min=0)[:, None], 1 - eps)
        loss = -(soft * lp).sum(-1).masked_fill(target == ignore_index, 0.0)
        valid = (target != ignore_index).sum().clamp(min=1)
        return {"none": loss, "sum": loss.sum()}.get(reduction, loss.sum() / valid)

    with pytest.raises(AssertionError, match=r"check 5/8 \(values\): label_smoothing=0.1, reduction='mean'"):
        grade(smoothing_over_others)


if __name__ == "__main__":
    _check()
