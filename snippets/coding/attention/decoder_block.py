"""C18 · Pre-norm decoder block (RMSNorm, causal attention, SwiGLU)."""

# --8<-- [start:prompt]
import torch.nn.functional as F
from torch import nn


class DecoderBlock(nn.Module):
    """A Llama-style block: x + attn(norm1(x)), then that + mlp(norm2(.)).

    Submodules, named so that the grader can load its weights, all without
    biases: norm1, norm2 = nn.RMSNorm(d, eps=1e-6); qkv = nn.Linear(d, 3d),
    whose output is [q | k | v], each split into n_heads heads of d/n_heads;
    out = nn.Linear(d, d); w1, w3 = nn.Linear(d, hidden); w2 =
    nn.Linear(hidden, d), with mlp(h) = w2(silu(w1 h) * w3 h). Attention is
    causal (token t sees tokens <= t). forward(x (B, T, d)) returns
    (B, T, d). nn.RMSNorm, nn.Linear and F.scaled_dot_product_attention are
    allowed: the task is the block.
    """

    def __init__(self, d, n_heads, hidden):
        super().__init__()
        raise NotImplementedError

    def forward(self, x):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = DecoderBlock

# --8<-- [start:wrong]
import torch.nn.functional as F
from torch import nn


class DecoderBlock(nn.Module):
    def __init__(self, d, n_heads, hidden):
        super().__init__()
        self.h = n_heads
        self.norm1, self.norm2 = nn.RMSNorm(d, 1e-6), nn.RMSNorm(d, 1e-6)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def attn(self, x):
        B, T, d = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.h, d // self.h)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(o.transpose(1, 2).reshape(B, T, d))

    def mlp(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.mlp(x))
# --8<-- [end:wrong]

_wrong = DecoderBlock
WRONG_MESSAGE = "this spec is pre-norm, x + attn(norm1(x)): the residual path is never normalised"

# --8<-- [start:solution]
import torch.nn.functional as F
from torch import nn


class DecoderBlock(nn.Module):
    def __init__(self, d, n_heads, hidden):
        super().__init__()
        self.h = n_heads
        self.norm1, self.norm2 = nn.RMSNorm(d, 1e-6), nn.RMSNorm(d, 1e-6)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def attn(self, x):
        B, T, d = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.h, d // self.h)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(o.transpose(1, 2).reshape(B, T, d))

    def mlp(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))
# --8<-- [end:solution]

_solution = DecoderBlock

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "on_fake_gpu", "randn")
)


def grade(DecoderBlock):
    import torch
    import torch.nn.functional as F
    from torch import nn

    step = checks("C18", "construct", "parameters", "device", "causality", "values", "gradients", "edges")

    class Reference(nn.Module):  # the grader's own block, from torch's pieces
        def __init__(self, d, h, hidden):
            super().__init__()
            self.h = h
            self.norm1, self.norm2 = nn.RMSNorm(d, 1e-6), nn.RMSNorm(d, 1e-6)
            self.qkv, self.out = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
            self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
            self.w2 = nn.Linear(hidden, d, bias=False)

        def attn(self, x):
            B, T, d = x.shape
            q, k, v = self.qkv(x).view(B, T, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
            return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d))

        def mlp(self, x):
            return self.w2(F.silu(self.w1(x)) * self.w3(x))

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

        def post_norm(self, x):  # the 2017 Transformer's order
            x = self.norm1(x + self.attn(x))
            return self.norm2(x + self.mlp(x))

    d, h, hidden = 8, 2, 12

    def pair(dtype=torch.float64, device="cpu"):
        torch.manual_seed(0)
        ref = Reference(d, h, hidden)
        with torch.no_grad():  # RMSNorm's weights start at 1: make them count
            ref.norm1.weight.uniform_(0.5, 1.5)
            ref.norm2.weight.uniform_(0.5, 1.5)
        ref = ref.to(device, dtype)
        mine = call(DecoderBlock, d, h, hidden).to(device, dtype)
        call(mine.load_state_dict, ref.state_dict(), strict=True)
        return mine, ref

    x = randn(2, 6, d, dtype=torch.float64)
    with step("construct"):
        block = call(DecoderBlock, d, h, hidden)
        call(block, x.float())
    with step("parameters"):
        got = {k: tuple(v.shape) for k, v in block.state_dict().items()}
        want = {k: tuple(v.shape) for k, v in Reference(d, h, hidden).state_dict().items()}
        assert got == want, f"your parameters are {got}; the spec's are {want}"
        count = sum(p.numel() for p in block.parameters())
        assert count == 4 * d * d + 3 * d * hidden + 2 * d, (
            f"{count} parameters; d={d}, hidden={hidden} has 4d² + 3·d·hidden + 2d = 552"
        )
    with step("device"):
        note = on_fake_gpu(lambda m, t: m(t), block, x.float())
    with step("causality"):
        mine, ref = pair()
        changed = x.clone()
        changed[:, 5] += 1.0
        with torch.no_grad():
            moved = (call(mine, changed) - call(mine, x)).abs().amax(dim=(0, 2))[:5]
        assert not moved.gt(1e-12).any(), (
            f"changing token 5 changed the output at position {int(moved.gt(1e-12).nonzero()[0])}: "
            "attention must be causal (a token sees itself and the past)"
        )
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32):
                mine, ref = pair(dtype, dev)
                xd = x.to(dev, dtype)
                with torch.no_grad():
                    got, want = call(mine, xd), ref(xd)
                    assert dtype != torch.float64 or not torch.allclose(got, ref.post_norm(xd)), (
                        "your block matches the post-norm variant (normalise after the residual add, as the 2017 "
                        "Transformer did); this spec is pre-norm, x + attn(norm1(x)): the residual path is never "
                        "normalised"
                    )
                close(got, want, f"{dtype} on {dev}")
    with step("gradients"):
        mine, ref = pair()
        w = randn(2, 6, d, seed=3, dtype=torch.float64)
        (call(mine, x) * w).sum().backward()
        (ref(x) * w).sum().backward()
        cut = [name for name, p in mine.named_parameters() if p.grad is None]
        assert not cut, f"{', '.join(cut)} got no gradient: the graph is cut before it"
        for (name, p), r in zip(mine.named_parameters(), ref.parameters(), strict=True):
            close(p.grad, r.grad, f"the gradient of {name}")
    with step("edges"):
        mine, ref = pair()
        with torch.no_grad():
            close(call(mine, x[:, :1]), ref(x[:, :1]), "T=1")
            strided = randn(6, 2, d, seed=4, dtype=torch.float64).transpose(0, 1)
            close(call(mine, strided), ref(strided), "non-contiguous x")
            mine, ref = mine.to(torch.bfloat16), ref.to(torch.bfloat16)
            xb = x.to(torch.bfloat16)
            close(call(mine, xb), ref(xb), "bfloat16")
    where = ", ".join(map(str, devices()))
    return f"C18 passes: equals a pre-norm block built from torch's pieces, causal, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch
    import torch.nn.functional as F

    assert grade(_solution).startswith("C18 passes")
    with pytest.raises(AssertionError, match=r"^C18 · check 1/7 \(construct\): DecoderBlock raised NotImpl"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C18 · check 5/7 \(values\): your block matches the post-norm.*"
                       + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: the shape, and causality
    m = _wrong(8, 2, 12)
    x = torch.randn(2, 6, 8)
    assert m(x).shape == (2, 6, 8)
    changed = x.clone()
    changed[:, 5] += 1.0
    with torch.no_grad():
        assert torch.allclose(m(changed)[:, :5], m(x)[:, :5])
    with pytest.raises(NotImplementedError):
        _stub.forward(None, x)

    # each other failure names its mistake
    class Renamed(_solution):
        def __init__(self, d, n_heads, hidden):
            super().__init__(d, n_heads, hidden)
            self.up = self.w1
            del self.w1

        def mlp(self, x):
            return self.w2(F.silu(self.up(x)) * self.w3(x))

    class Bidirectional(_solution):
        def attn(self, x):
            B, T, d = x.shape
            q, k, v = self.qkv(x).view(B, T, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
            return self.out(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, T, d))

    class FrozenGate(_solution):
        def mlp(self, x):
            return self.w2(F.silu(self.w1(x)) * self.w3(x).detach())

    class CpuMask(_solution):
        def forward(self, x):
            return super().forward(x) + torch.zeros(x.shape[-1])

    cases = [
        (Renamed, r"check 2/7 \(parameters\): your parameters are .*'up.weight'"),
        (CpuMask, r"check 3/7 \(device\): not device-agnostic"),
        (Bidirectional, r"check 4/7 \(causality\): changing token 5 changed the output at position 0"),
        (FrozenGate, r"check 6/7 \(gradients\): w3.weight got no gradient"),
    ]
    for attempt, message in cases:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
