"""C4 · RMSNorm."""

# --8<-- [start:prompt]
import torch
from torch import nn


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x², last dim) + eps) * weight.

    weight: a Parameter of ones, shape (dim,). No mean is subtracted.
    For float16/bfloat16 inputs compute the statistic in float32; the
    output has x's dtype. Not allowed: F.rms_norm / nn.RMSNorm.
    """

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        raise NotImplementedError

    def forward(self, x):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = RMSNorm

# --8<-- [start:wrong]
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        y = xf / xf.norm(dim=-1, keepdim=True)
        return (y * self.weight).to(x.dtype)
# --8<-- [end:wrong]

_wrong = RMSNorm
WRONG_MESSAGE = "RMS is the norm divided by √D: use the mean of the squares"

# --8<-- [start:solution]
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight).to(x.dtype)
# --8<-- [end:solution]

_solution = RMSNorm

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(RMSNorm):
    import math

    import torch
    import torch.nn.functional as F

    step = checks("C4", "construct", "parameters", "device", "shape", "values", "float16", "gradients")

    def run(module, x):
        with forbid("rms_norm"):
            return call(module, x)

    def reference(x, w, eps=1e-6):
        return F.rms_norm(x.double(), (x.shape[-1],), w.double(), eps).to(x.dtype)

    with step("construct"):
        norm = call(RMSNorm, 64)
        out = run(norm, randn(2, 3, 64, dtype=torch.float64))
    with step("parameters"):
        names = sorted(norm.state_dict())
        assert names == ["weight"], f"the state dict holds {names}; nn.RMSNorm's holds ['weight']"
        w = norm.weight
        assert isinstance(w, torch.nn.Parameter) and w.shape == (64,), "weight is a Parameter of shape (dim,)"
        assert torch.equal(w.detach(), torch.ones(64)), "weight starts at ones"
    with step("device"):
        note = on_fake_gpu(lambda m, x: m(x), norm, randn(2, 64))
    with step("shape"):
        close(out, reference(randn(2, 3, 64, dtype=torch.float64), torch.ones(64)), "the output", float("inf"))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                norm = call(RMSNorm, 64, eps=1e-5).to(dev)
                with torch.no_grad():
                    norm.weight.copy_(randn(64, seed=5, device=dev))
                x = randn(2, 3, 64, dtype=dtype, device=dev)
                out, want = run(norm, x), reference(x, norm.weight, 1e-5)
                if dtype == torch.float64:
                    ratio = (want / out).abs().median().item()
                    assert abs(ratio - math.sqrt(64)) > 0.01, (
                        f"your output is √D = {math.sqrt(64):.0f} times too small for D = 64: "
                        "RMS is the norm divided by √D: use the mean of the squares"
                    )
                close(out, want, f"weight random, eps=1e-5, {dtype} on {dev}")
    with step("float16"):
        norm = call(RMSNorm, 8)
        x = torch.full((2, 8), 300.0, dtype=torch.float16)
        out = run(norm, x)
        assert out.dtype == torch.float16, f"a float16 input must give a float16 output, not {out.dtype}"
        assert out.abs().min() > 0.5, (
            "a float16 input of 300 gave zeros: x² = 90000 overflows float16 (max 65504); "
            "compute the statistic in float32"
        )
        close(out, reference(x, torch.ones(8)), "a float16 input of magnitude 300")
    with step("gradients"):
        norm = call(RMSNorm, 5).double()

        def through(x, w):
            return torch.func.functional_call(norm, {"weight": w}, (x,))

        x, w = randn(2, 3, 5, dtype=torch.float64), randn(5, seed=1, dtype=torch.float64)
        gradcheck64(through, [x, w], names=["x", "weight"], reference=lambda x, w: reference(x, w))
    return f"C4 passes: matches F.rms_norm on {', '.join(map(str, devices()))}, float16 safe; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C4 passes")
    with pytest.raises(AssertionError, match=r"^C4 · check 1/7 \(construct\): RMSNorm raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C4 · check 5/7 \(values\): your output is √D = 8 times too small"):
        grade(_wrong)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes a unit test that only checks the direction of each row
    x = randn(3, 64)
    y = _wrong(64)(x)
    assert torch.allclose(torch.nn.functional.normalize(y, dim=-1), torch.nn.functional.normalize(x, dim=-1))
    with pytest.raises(NotImplementedError):
        _stub.forward(None, x)

    class NoUpcast(_solution):
        def forward(self, x):
            y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
            return (y * self.weight).to(x.dtype)

    with pytest.raises(AssertionError, match=r"check 6/7 \(float16\): a float16 input of 300 gave zeros"):
        grade(NoUpcast)


if __name__ == "__main__":
    _check()
