"""C36 · LoRA linear layer with merge and unmerge."""

# --8<-- [start:prompt]
import torch
from torch import nn


class LoRALinear(nn.Module):
    """Wrap a frozen nn.Linear with a low-rank adapter of rank r.

    forward(x) = base(x) + (alpha / r) * x @ A.T @ B.T, with parameters
    A (r, in) random and B (out, r) zero, on base's device and dtype.
    merge() adds the adapter into base.weight and stops adding it in
    forward; unmerge() takes it back out. Both are idempotent.
    """

    def __init__(self, base, r, alpha):
        super().__init__()
        raise NotImplementedError

    def forward(self, x):
        raise NotImplementedError

    def merge(self):
        raise NotImplementedError

    def unmerge(self):
        raise NotImplementedError
# --8<-- [end:prompt]


_stub = LoRALinear


# --8<-- [start:wrong]
import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.scale = alpha / r
        out_f, in_f = base.weight.shape
        like = dict(dtype=base.weight.dtype, device=base.weight.device)
        self.A = nn.Parameter(torch.randn(r, in_f, **like) / in_f**0.5)
        self.B = nn.Parameter(torch.zeros(out_f, r, **like))
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + self.scale * (x @ self.A.T) @ self.B.T
        return out

    @torch.no_grad()
    def merge(self):
        if not self.merged:
            self.base.weight += self.B @ self.A
            self.merged = True

    @torch.no_grad()
    def unmerge(self):
        if self.merged:
            self.base.weight -= self.scale * self.B @ self.A
            self.merged = False
# --8<-- [end:wrong]


_wrong = LoRALinear
WRONG_MESSAGE = 'so merge must add the same'


# --8<-- [start:solution]
import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.scale = alpha / r
        out_f, in_f = base.weight.shape
        like = dict(dtype=base.weight.dtype, device=base.weight.device)
        self.A = nn.Parameter(torch.randn(r, in_f, **like) / in_f**0.5)
        self.B = nn.Parameter(torch.zeros(out_f, r, **like))
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + self.scale * (x @ self.A.T) @ self.B.T
        return out

    @torch.no_grad()
    def merge(self):
        if not self.merged:
            self.base.weight += self.scale * self.B @ self.A
            self.merged = True

    @torch.no_grad()
    def unmerge(self):
        if self.merged:
            self.base.weight -= self.scale * self.B @ self.A
            self.merged = False
# --8<-- [end:solution]


_solution = LoRALinear


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(LoRALinear):
    import copy

    import torch

    def fail(what, msg):
        raise AssertionError(f"C36 · {what}: {msg}")

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        base = torch.nn.Linear(6, 4).double()
        x = torch.randn(5, 6, dtype=torch.float64)
    call(LoRALinear, copy.deepcopy(base), 2, 8)  # construction and signature, on the CPU
    on_fake_gpu(lambda m, x: LoRALinear(m, 2, 8)(x), base, x, like="base.weight")
    for dev in devices():
        for dtype in (torch.float64, torch.float32):
            tol = 1e-10 if dtype == torch.float64 else 1e-5
            b = copy.deepcopy(base).to(dev, dtype)
            xd = x.to(dev, dtype)
            plain = b(xd).detach()
            with torch.random.fork_rng(devices=[]):  # the same A on every run: a check that can't flake
                torch.manual_seed(1)
                lora = call(LoRALinear, b, 2, 8)
            close(call(lora, xd), plain, f"at init (B = 0) the output must equal the base layer's ({dtype})", 0, 0)
            trainable = sorted(n for n, p in lora.named_parameters() if p.requires_grad)
            if trainable != ["A", "B"]:
                fail("frozen base", f"only A and B may require grad; trainable parameters are {trainable}")
            opt = torch.optim.SGD([lora.A, lora.B], lr=0.5)
            call(lora, xd).pow(2).sum().backward()
            opt.step()
            if torch.equal(lora.B.detach(), torch.zeros_like(lora.B)):
                fail("training", "one SGD step left B at zero: the adapter must be on the gradient's path")
            w0 = b.weight.detach().clone()
            unmerged = call(lora, xd).detach()
            call(lora.merge)
            merged = call(lora, xd).detach()
            gap = (merged - unmerged).abs().max().item()
            if gap > 10 * tol * max(1.0, unmerged.abs().max().item()):  # outputs reach hundreds: relative
                fail("merge", f"after merge() your output changed by up to {gap:.2g}: the adapter adds "
                     "(alpha/r) * B @ A, so merge must add the same")
            close(merged, unmerged, f"merged against unmerged output ({dtype})", tol, tol)
            call(lora.merge)
            close(call(lora, xd).detach(), unmerged, "merge() twice: the adapter counts twice after merge()", tol, tol)
            call(lora.unmerge)
            close(b.weight.detach(), w0, "unmerge() restores the base weight", tol, tol)
            close(call(lora, xd).detach(), unmerged, "after unmerge() the adapter path is back", tol, tol)
        bf = call(LoRALinear, copy.deepcopy(base).to(dev, torch.bfloat16), 4, 4)
        if call(bf, x.to(dev, torch.bfloat16)).dtype != torch.bfloat16 or bf.A.dtype != torch.bfloat16:
            fail("dtype", "a bfloat16 base needs bfloat16 A and B and a bfloat16 output")
    return "C36 passes: base output at init, only A and B train, merge equals unmerged, idempotent, unmerge restores"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C36 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    import torch

    for method in (_stub.forward, _stub.merge, _stub.unmerge):
        with pytest.raises(NotImplementedError):
            method(None) if method is not _stub.forward else method(None, None)
    # the wrong attempt's unmerge takes out (alpha/r) B A where its merge put in B A: the weight does not come back
    wrong = _wrong(torch.nn.Linear(3, 2), 1, 4)
    with torch.no_grad():
        wrong.B.fill_(1.0)
    w0 = wrong.base.weight.detach().clone()
    wrong.merge(), wrong.unmerge()
    assert not torch.allclose(wrong.base.weight, w0)

    # mutants of the reference, one per remaining failure, each with its exact message
    class Unfrozen(_solution):  # leaves the base layer trainable
        def __init__(self, base, r, alpha):
            super().__init__(base, r, alpha)
            self.base.requires_grad_(True)

    class Detached(_solution):  # B detached in the adapter path: A trains, B never does
        def forward(self, x):
            out = self.base(x)
            return out if self.merged else out + self.scale * (x @ self.A.T) @ self.B.T.detach()

    class Upcast(_solution):  # returns at least float32
        def forward(self, x):
            return super().forward(x).to(torch.promote_types(x.dtype, torch.float32))

    for attempt, message in [
        (Unfrozen, r"^C36 · frozen base: only A and B may require grad; trainable parameters are \['A', 'B', 'base"),
        (Detached, r"^C36 · training: one SGD step left B at zero: the adapter must be on the gradient's path$"),
        (Upcast, r"^C36 · dtype: a bfloat16 base needs bfloat16 A and B and a bfloat16 output$"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
