"""C6 · Inverted dropout."""

# --8<-- [start:prompt]
import torch
from torch import nn


class Dropout(nn.Module):
    """In training, zero each element independently with probability p and
    scale the survivors by 1 / (1 - p); in eval, return x unchanged.
    p = 0 is the identity, p = 1 gives zeros (not NaN). The output keeps
    x's dtype and device. Not allowed: F.dropout and its relatives.
    """

    def __init__(self, p=0.5):
        super().__init__()
        raise NotImplementedError

    def forward(self, x):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = Dropout

# --8<-- [start:wrong]
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        keep = (torch.rand_like(x) >= self.p).to(x.dtype)
        return x * keep
# --8<-- [end:wrong]

_wrong = Dropout
WRONG_MESSAGE = "inverted dropout scales the survivors by 1/(1-p) in training, so eval needs no change"

# --8<-- [start:solution]
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        keep = (torch.rand_like(x) >= self.p).to(x.dtype)
        return x * keep / (1 - self.p)
# --8<-- [end:solution]

_solution = Dropout

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "on_fake_gpu", "randn")
)


def grade(Dropout):
    import torch

    step = checks("C6", "construct", "device", "eval", "rate", "scaling", "gradient", "edges")
    banned = ("dropout", "native_dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")

    def run(module, x):
        with forbid(*banned):
            return call(module, x)

    x = randn(100_000, dtype=torch.float64) + 3.0  # no zeros of its own
    with step("construct"):
        drop = call(Dropout, 0.5)
        out = run(drop, x[:10])
        assert drop.training, "a new module is in training mode"
    with step("device"):
        note = on_fake_gpu(lambda m, t: m(t), drop, x[:10])
    with step("eval"):
        drop.eval()
        out = run(drop, x)
        dropped = (out == 0).double().mean().item()
        assert dropped == 0, (
            f"in eval mode {dropped:.0%} were still dropped: branch on self.training, which model.eval() "
            "sets (torch.no_grad() does not)"
        )
        close(out, x, "eval mode (the identity)")
    with step("rate"):
        for dev in devices():
            for p in (0.5, 0.1):
                drop = call(Dropout, p).train()
                torch.manual_seed(0)
                out = run(drop, x.to(dev))
                rate = (out == 0).double().mean().item()
                sigma = (p * (1 - p) / x.numel()) ** 0.5
                assert abs(rate - p) < 10 * sigma, (
                    f"p={p} on {dev}: {rate:.4f} of the elements were zeroed; expected {p} ± {10 * sigma:.4f} (10σ)"
                )
    with step("scaling"):
        drop = call(Dropout, 0.5).train()
        torch.manual_seed(1)
        out = run(drop, x)
        kept = out != 0
        ratio = (out[kept] / x[kept]).mean().item()
        assert abs(ratio - 1.0) > 1e-6, (
            "in training the survivors came back unscaled: inverted dropout scales the survivors by 1/(1-p) "
            "in training, so eval needs no change"
        )
        close(out[kept], x[kept] / 0.5, "the survivors, p=0.5")
    with step("gradient"):
        leaf = x[:1000].clone().requires_grad_()
        torch.manual_seed(2)
        out = run(drop, leaf)
        out.sum().backward()
        close(leaf.grad, (out != 0).double() / 0.5, "x.grad after out.sum().backward(): the same mask, scaled")
    with step("edges"):
        for p, want, what in ((0.0, x[:50], "p=0 (the identity)"), (1.0, torch.zeros(50, dtype=x.dtype), "p=1")):
            close(run(call(Dropout, p).train(), x[:50]), want, what)
        half = x[:1000].to(torch.bfloat16)
        assert run(call(Dropout, 0.5).train(), half).dtype == torch.bfloat16, "a bfloat16 input stays bfloat16"
    where = ", ".join(map(str, devices()))
    return f"C6 passes: rate within 10σ, survivors scaled, eval the identity on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C6 passes")
    with pytest.raises(AssertionError, match=r"^C6 · check 1/7 \(construct\): Dropout raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C6 · check 5/7 \(scaling\): .*" + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: about half the elements are zero
    torch.manual_seed(0)
    y = _wrong(0.5)(torch.ones(10_000))
    assert abs((y == 0).float().mean().item() - 0.5) < 0.05
    assert torch.equal(_wrong(1.0)(torch.ones(3)), torch.zeros(3))  # its p = 1 edge is right
    with pytest.raises(NotImplementedError):
        _stub.forward(None, torch.ones(3))

    class NoModeCheck(_solution):
        def forward(self, x):
            keep = (torch.rand_like(x) >= self.p).to(x.dtype)
            return x * keep / (1 - self.p)

    class CpuMask(_solution):
        def forward(self, x):
            keep = (torch.rand(x.shape) >= self.p).to(x.dtype)
            return x * keep / (1 - self.p)

    with pytest.raises(AssertionError, match=r"check 3/7 \(eval\): in eval mode 50% were still dropped"):
        grade(NoModeCheck)
    with pytest.raises(AssertionError, match=r"check 2/7 \(device\): not device-agnostic"):
        grade(CpuMask)


if __name__ == "__main__":
    _check()
