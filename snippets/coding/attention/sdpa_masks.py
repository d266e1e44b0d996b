"""C13 · Scaled dot-product attention with padding and causal masks."""

# --8<-- [start:prompt]
import torch


def attention(q, k, v, key_padding_mask=None, causal=False):
    """softmax(q kᵀ / √D) v over the allowed keys.

    q: (B, H, Tq, D), k: (B, H, Tk, D), v: (B, H, Tk, Dv), any float dtype.
    key_padding_mask: None or (B, Tk) bool, True where the key is padding.
    causal: query i sees keys j <= i + Tk - Tq (aligned bottom-right, so
    the last query sees every key). A query with no allowed key returns
    zeros. Returns (B, H, Tq, Dv) with q's dtype, on q's device.
    Not allowed: F.scaled_dot_product_attention.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = attention

# --8<-- [start:wrong]
import math

import torch


def attention(q, k, v, key_padding_mask=None, causal=False):
    Tq, Tk = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(Tq, Tk, dtype=torch.bool)
    if causal:
        allowed = allowed.tril(Tk - Tq)
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = scores.softmax(dim=-1).nan_to_num(0.0)  # empty rows -> 0
    return weights @ v
# --8<-- [end:wrong]

_wrong = attention
WRONG_MESSAGE = "found at least two devices, cpu and cuda:0! Create tensors with `device=q.device`"

# --8<-- [start:solution]
import math

import torch


def attention(q, k, v, key_padding_mask=None, causal=False):
    Tq, Tk = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(Tq, Tk, dtype=torch.bool, device=q.device)
    if causal:
        allowed = allowed.tril(Tk - Tq)
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = scores.softmax(dim=-1).nan_to_num(0.0)  # empty rows -> 0
    return weights @ v
# --8<-- [end:solution]

_solution = attention

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(attention):
    import torch
    import torch.nn.functional as F

    step = checks("C13", "call", "device", "shape", "weights", "values", "masked rows", "gradients", "edges")
    sdpa = ("scaled_dot_product_attention", "scaled_dot_product_flash_attention_for_cpu")

    def reference(q, k, v, pad=None, causal=False):
        Tq, Tk = q.shape[-2], k.shape[-2]
        allowed = torch.ones(Tq, Tk, dtype=torch.bool, device=q.device)
        allowed = allowed.tril(Tk - Tq) if causal else allowed
        if pad is not None:
            allowed = allowed & ~pad[:, None, None, :]
        out = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=allowed)
        return out.to(q.dtype)

    def run(*args, **kwargs):
        with forbid(*sdpa):
            return call(attention, *args, **kwargs)

    def inputs(B, H, Tq, Tk, D, Dv, dtype=torch.float64, device="cpu", seed=0):
        q = randn(B, H, Tq, D, seed=seed, dtype=dtype, device=device)
        k = randn(B, H, Tk, D, seed=seed + 1, dtype=dtype, device=device)
        v = randn(B, H, Tk, Dv, seed=seed + 2, dtype=dtype, device=device)
        return q, k, v

    q, k, v = inputs(2, 3, 4, 6, 8, 5)
    pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    with step("call"):
        out = run(q, k, v)
    with step("device"):
        note = on_fake_gpu(attention, q, k, v, pad, causal=True, like="q")
    with step("shape"):
        close(out, reference(q, k, v), atol=float("inf"))  # shape, dtype, device only
    with step("weights"):
        ones = run(q, k, torch.ones(2, 3, 6, 1, dtype=torch.float64))
        assert torch.allclose(ones, torch.ones_like(ones)), (
            "with every value equal to 1 the output must be 1: the weights must sum to 1 over the keys (dim -1)"
        )
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                q, k, v = (t.to(dev, dtype) for t in inputs(2, 3, 4, 6, 8, 5))
                for causal in (False, True):
                    for p in (None, pad.to(dev)):
                        what = f"causal={causal}, padding={p is not None}, {dtype} on {dev}"
                        close(run(q, k, v, p, causal=causal), reference(q, k, v, p, causal), what)
    with step("masked rows"):
        q, k, v = inputs(1, 1, 4, 4, 8, 5)
        v = v.clone()
        v[..., 2:, :] = 1e4  # the padded keys' values: they must change nothing
        pad = torch.tensor([[False, False, True, True]])
        out = run(q, k, v, pad)
        assert out.abs().max() < 100, "padded keys changed the output: mask the keys (the last dim of the scores)"
        pad = torch.tensor([[True, False, False, False]])  # with causal, query 0 sees only key 0: padding
        out = run(q, k, v, pad, causal=True)
        assert not out.isnan().any(), (
            "query 0 has no allowed key and came back NaN (softmax of all -inf): return zeros for it, as SDPA does"
        )
        close(out, reference(q, k, v, pad, True), "a query with no allowed key")
    with step("gradients"):
        q, k, v = inputs(1, 2, 3, 4, 2, 2)
        pad = torch.tensor([[False, False, False, True]])
        gradcheck64(
            lambda q, k, v: attention(q, k, v, pad, causal=True),
            [q, k, v],
            names=["q", "k", "v"],
            reference=lambda q, k, v: reference(q, k, v, pad, True),
        )
    with step("edges"):
        q, k, v = inputs(2, 1, 1, 5, 4, 3)  # one query: the decoding case
        close(run(q, k, v, causal=True), reference(q, k, v, causal=True), "Tq=1, causal (sees every key)")
        q, k, v = inputs(2, 4, 3, 5, 6, 3)
        q, k, v = (t.transpose(1, 2).contiguous().transpose(1, 2) for t in (q, k, v))
        close(run(q, k, v, causal=True), reference(q, k, v, causal=True), "non-contiguous q, k, v")
    return f"C13 passes: matches SDPA with both masks on {', '.join(map(str, devices()))}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C13 passes")
    with pytest.raises(AssertionError, match=r"^C13 · check 1/8 \(call\): attention raised NotImplementedError"):
        grade(_stub)
    device = r"^C13 · check 2/8 \(device\): not device-agnostic \(line \d+\): "
    with pytest.raises(AssertionError, match=device + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: CPU tensors, both masks
    q, k, v = (randn(1, 2, 3, 4, seed=s, dtype=torch.float64) for s in range(3))
    close(_wrong(q, k, v, causal=True), _solution(q, k, v, causal=True))

    # secondary wrong attempts get their own messages
    import math

    def over_queries(q, k, v, key_padding_mask=None, causal=False):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return scores.softmax(dim=-2) @ v

    def nan_rows(q, k, v, key_padding_mask=None, causal=False):
        Tq, Tk = q.shape[-2], k.shape[-2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(Tq, Tk, dtype=torch.bool, device=q.device)
        allowed = allowed.tril(Tk - Tq) if causal else allowed
        if key_padding_mask is not None:
            allowed = allowed & ~key_padding_mask[:, None, None, :]
        return scores.masked_fill(~allowed, float("-inf")).softmax(-1) @ v

    def uses_sdpa(q, k, v, key_padding_mask=None, causal=False):
        from torch.nn.functional import scaled_dot_product_attention as fast

        return fast(q, k, v)

    with pytest.raises(AssertionError, match=r"check 4/8 \(weights\): .* sum to 1 over the keys \(dim -1\)"):
        grade(over_queries)
    with pytest.raises(AssertionError, match=r"check 6/8 \(masked rows\): query 0 has no allowed key"):
        grade(nan_rows)
    with pytest.raises(AssertionError, match=r"check 1/8 \(call\): calls torch.nn.functional.scaled_dot_product"):
        grade(uses_sdpa)


if __name__ == "__main__":
    _check()
