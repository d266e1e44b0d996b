"""C14 · Multi-head self-attention module."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    """Self-attention that loads nn.MultiheadAttention(batch_first=True)'s
    weights: in_proj_weight (3d, d), in_proj_bias (3d,) or None, and
    out_proj, an nn.Linear(d, d). d_model % n_heads != 0 raises ValueError.
    forward(x (B, T, d), key_padding_mask (B, T) bool True = pad, causal)
    returns (B, T, d). F.scaled_dot_product_attention is allowed: the task
    is the module around it.
    """

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        raise NotImplementedError

    def forward(self, x, key_padding_mask=None, causal=False):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = MultiHeadAttention

# --8<-- [start:wrong]
import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{d_model=} is not a multiple of {n_heads=}")
        self.h = n_heads
        w = torch.empty(3 * d_model, d_model)
        self.in_proj_weight = nn.Parameter(nn.init.xavier_uniform_(w))
        b = torch.zeros(3 * d_model) if bias else None
        self.in_proj_bias = None if b is None else nn.Parameter(b)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, key_padding_mask=None, causal=False):
        B, T, d = x.shape
        qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias)
        qkv = qkv.view(B, T, 3, self.h, d // self.h)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        ok = torch.ones(T, T, dtype=torch.bool, device=x.device)
        ok = ok.tril() if causal else ok
        if key_padding_mask is not None:
            ok = ok & ~key_padding_mask[:, None, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=ok)
        return self.out_proj(out.reshape(B, T, d))
# --8<-- [end:wrong]

_wrong = MultiHeadAttention
WRONG_MESSAGE = "go (B, H, T, Dh) -> (B, T, H, Dh) first (transpose(1, 2)), then reshape"

# --8<-- [start:solution]
import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{d_model=} is not a multiple of {n_heads=}")
        self.h = n_heads
        w = torch.empty(3 * d_model, d_model)
        self.in_proj_weight = nn.Parameter(nn.init.xavier_uniform_(w))
        b = torch.zeros(3 * d_model) if bias else None
        self.in_proj_bias = None if b is None else nn.Parameter(b)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, key_padding_mask=None, causal=False):
        B, T, d = x.shape
        qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias)
        qkv = qkv.view(B, T, 3, self.h, d // self.h)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        ok = torch.ones(T, T, dtype=torch.bool, device=x.device)
        ok = ok.tril() if causal else ok
        if key_padding_mask is not None:
            ok = ok & ~key_padding_mask[:, None, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=ok)
        return self.out_proj(out.transpose(1, 2).reshape(B, T, d))
# --8<-- [end:solution]

_solution = MultiHeadAttention

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "on_fake_gpu", "randn")
)


def grade(MultiHeadAttention):
    import torch
    import torch.nn.functional as F
    from torch import nn

    step = checks("C14", "construct", "parameters", "device", "values", "masks", "gradients", "edges")

    def pair(d=8, h=2, bias=True, dtype=torch.float64, device="cpu"):
        torch.manual_seed(0)
        ref = nn.MultiheadAttention(d, h, bias=bias, batch_first=True).to(device, dtype)
        if bias:  # torch starts its biases at 0: make them count
            with torch.no_grad():
                ref.in_proj_bias.normal_()
                ref.out_proj.bias.normal_()
        mine = call(MultiHeadAttention, d, h, bias=bias).to(device, dtype)
        call(mine.load_state_dict, ref.state_dict(), strict=True)
        return mine, ref

    def expected(ref, x, pad=None, causal=False):
        T = x.shape[1]
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1) if causal else None
        return ref(x, x, x, key_padding_mask=pad, attn_mask=mask, need_weights=False)[0]

    def unmerged(ref, x):  # the classic slip, computed with torch's own pieces
        B, T, d = x.shape
        q, k, v = F.linear(x, ref.in_proj_weight, ref.in_proj_bias).view(B, T, 3, ref.num_heads, -1).unbind(2)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return ref.out_proj(out.reshape(B, T, d))

    x = randn(2, 5, 8, dtype=torch.float64)
    with step("construct"):
        mha = call(MultiHeadAttention, 8, 2)
        call(mha, x.float())
        raised = None
        try:
            MultiHeadAttention(8, 3)
        except Exception as error:
            raised = error
        assert isinstance(raised, ValueError), (
            f"MultiHeadAttention(8, 3) must raise ValueError (8 is not a multiple of 3), not {raised!r}"
        )
    with step("parameters"):
        ref = nn.MultiheadAttention(8, 2, batch_first=True)
        got = {k: tuple(v.shape) for k, v in mha.state_dict().items()}
        want = {k: tuple(v.shape) for k, v in ref.state_dict().items()}
        assert got == want, f"your parameters are {got}; nn.MultiheadAttention's are {want}"
        count = sum(p.numel() for p in mha.parameters())
        assert count == 4 * 8 * 8 + 4 * 8, f"{count} parameters; d=8 with biases has 4d² + 4d = 288"
    with step("device"):
        note = on_fake_gpu(lambda m, t, p: m(t, p, causal=True), mha, x.float(), torch.zeros(2, 5, dtype=torch.bool))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32):
                mine, ref = pair(dtype=dtype, device=dev)
                xd = x.to(dev, dtype)
                got = call(mine, xd)
                with torch.no_grad():
                    if dtype == torch.float64 and torch.allclose(got, unmerged(ref, xd)):
                        raise AssertionError(
                            "your output matches the 'heads merged without transposing' variant: "
                            "go (B, H, T, Dh) -> (B, T, H, Dh) first (transpose(1, 2)), then reshape"
                        )
                    want = expected(ref, xd)
                close(got, want, f"no mask, {dtype} on {dev}", 1e-5 if dtype == torch.float32 else None)
    with step("masks"):
        mine, ref = pair()
        pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
        with torch.no_grad():
            close(call(mine, x, pad), expected(ref, x, pad), "with key_padding_mask")
            close(call(mine, x, causal=True), expected(ref, x, causal=True), "causal")
            close(call(mine, x, pad, causal=True), expected(ref, x, pad, True), "both masks")
    with step("gradients"):
        mine, ref = pair()
        w = randn(2, 5, 8, seed=3, dtype=torch.float64)
        (call(mine, x, causal=True) * w).sum().backward()
        (expected(ref, x, causal=True) * w).sum().backward()
        for (name, p), q in zip(mine.named_parameters(), ref.parameters(), strict=True):
            assert p.grad is not None, f"{name} got no gradient"
            close(p.grad, q.grad, f"the gradient of {name}")
    with step("edges"):
        mine, ref = pair(bias=False)
        one = x[:, :1]
        with torch.no_grad():
            close(call(mine, one, causal=True), expected(ref, one, causal=True), "T=1, bias=False")
    where = ", ".join(map(str, devices()))
    return f"C14 passes: equals nn.MultiheadAttention with its weights, both masks, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C14 passes")
    with pytest.raises(AssertionError, match=r"^C14 · check 1/7 \(construct\): MultiHeadAttention raised Not"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C14 · check 4/7 \(values\): .*" + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: the output's shape, and T=1 (nothing to interleave)
    m = _wrong(8, 2)
    assert m(torch.randn(2, 5, 8)).shape == (2, 5, 8)
    x = torch.randn(2, 1, 8)
    assert torch.allclose(m(x), _solution.forward(m, x))
    with pytest.raises(ValueError, match="not a multiple"):
        _wrong(8, 3)
    with pytest.raises(NotImplementedError):
        _stub.forward(None, x)


if __name__ == "__main__":
    _check()
