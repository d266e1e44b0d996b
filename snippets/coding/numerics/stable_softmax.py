"""C1 · Stable softmax and log-softmax."""

# --8<-- [start:prompt]
import torch


def softmax(x, dim=-1):
    """exp(x) / sum(exp(x)) along `dim`, for any shape, dtype and device.

    Finite for any finite input (1e4 included); -inf entries get weight 0.
    Not allowed: torch's softmax, log_softmax and logsumexp, in any form.
    """
    raise NotImplementedError


def log_softmax(x, dim=-1):
    """log(softmax(x, dim)), computed without taking the log of a softmax:
    log_softmax([0, -200]) in float32 is [0, -200], not [0, -inf].
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = (softmax, log_softmax)

# --8<-- [start:wrong]
import torch


def softmax(x, dim=-1):
    e = x.exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(x, dim=-1):
    return x - x.exp().sum(dim, keepdim=True).log()
# --8<-- [end:wrong]

_wrong = (softmax, log_softmax)
WRONG_MESSAGE = (
    "NaN for inputs of magnitude 1e4: exp overflows to inf, and inf/inf is NaN; subtract the max along `dim` first"
)

# --8<-- [start:solution]
import torch


def softmax(x, dim=-1):
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(x, dim=-1):
    z = x - x.amax(dim, keepdim=True)
    return z - z.exp().sum(dim, keepdim=True).log()
# --8<-- [end:solution]

_solution = (softmax, log_softmax)

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(softmax, log_softmax):
    import torch

    step = checks("C1", "call", "device", "shape", "values", "extremes", "-inf", "edges", "gradients")
    banned = ("softmax", "log_softmax", "logsumexp", "special_softmax", "special_log_softmax")
    pairs = (("softmax", softmax, torch.softmax), ("log_softmax", log_softmax, torch.log_softmax))

    def run(fn, x, dim):
        with forbid(*banned):
            return call(fn, x, dim)

    def compare(x, dim, what):
        for name, fn, ref in pairs:
            want = ref(x.double(), dim).to(x.dtype)
            close(run(fn, x, dim), want, f"{name} of {what} along dim {dim}")

    x = randn(2, 3, 4, dtype=torch.float64)
    with step("call"):
        outs = [run(fn, x, -1) for fn in (softmax, log_softmax)]
    with step("device"):
        note = on_fake_gpu(lambda t: (softmax(t, 1), log_softmax(t, 1)), x)
    with step("shape"):
        for (name, _, ref), out in zip(pairs, outs, strict=True):
            close(out, ref(x, -1), f"{name}(x of shape (2, 3, 4))", atol=float("inf"))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                for dim in (0, 1, -1):
                    compare(randn(2, 3, 4, dtype=dtype, device=dev), dim, f"(2, 3, 4) {dtype} on {dev}")
    with step("extremes"):
        big = torch.tensor([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4]])
        out = run(softmax, big, -1)
        assert not out.isnan().any(), (
            "softmax: NaN for inputs of magnitude 1e4: exp overflows to inf, and inf/inf is NaN; "
            "subtract the max along `dim` first"
        )
        out = run(log_softmax, torch.tensor([0.0, -200.0]), -1)
        assert out[1] > -1e30, (
            "log_softmax([0, -200]) gave -inf where torch gives -200: a softmax underflows to 0 before its "
            "log; compute x - max - log(sum(exp(x - max)))"
        )
        compare(big, -1, "inputs of magnitude 1e4")
    with step("-inf"):
        compare(torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf"), 2.0, 2.0]]), -1, "rows with -inf")
    with step("edges"):
        compare(randn(3, 1, dtype=torch.float64), -1, "a size-1 dim")
        compare(randn(0, 4, dtype=torch.float64), -1, "an empty batch (0, 4)")
        compare(randn(4, 3, dtype=torch.float64).T, -1, "a non-contiguous input")
    with step("gradients"):
        for name, fn, ref in pairs:
            x = randn(2, 3, 4, dtype=torch.float64)
            gradcheck64(lambda t, f=fn: f(t, 1), [x], names=[f"x in {name}"], reference=lambda t, r=ref: r(t, 1))
    return f"C1 passes: both functions match torch on {', '.join(map(str, devices()))}; {note}"


WRONG_MESSAGE_LOG = "log_softmax([0, -200]) gave -inf where torch gives -200"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(*_solution).startswith("C1 passes")
    with pytest.raises(AssertionError, match=r"^C1 · check 1/8 \(call\): softmax raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=r"^C1 · check 5/8 \(extremes\): softmax: " + re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    # the wrong attempt passes the usual unit test: randn inputs
    x = randn(4, 5)
    close(_wrong[0](x), torch.softmax(x, -1))
    close(_wrong[1](x), torch.log_softmax(x, -1))
    with pytest.raises(NotImplementedError):
        _stub[1](x)

    # secondary wrong attempts: the log of a softmax, and a banned call under an alias
    def log_of_softmax(x, dim=-1):
        return _solution[0](x, dim).log()

    with pytest.raises(AssertionError, match=r"check 5/8 \(extremes\): " + re.escape(WRONG_MESSAGE_LOG)):
        grade(_solution[0], log_of_softmax)

    def aliased(x, dim=-1):
        from torch.nn.functional import softmax as s

        return s(x, dim)

    with pytest.raises(AssertionError, match=r"check 1/8 \(call\): calls torch.nn.functional.softmax: the task"):
        grade(aliased, _solution[1])


if __name__ == "__main__":
    _check()
