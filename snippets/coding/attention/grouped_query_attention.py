"""C15 · Grouped-query attention."""

# --8<-- [start:prompt]
import torch


def gqa(q, k, v, causal=True):
    """Attention where groups of query heads share a key/value head.

    q: (B, Hq, T, D); k, v: (B, Hkv, T, D), Hq a multiple of Hkv (else
    ValueError). Query head h uses KV head h // (Hq // Hkv), as SDPA's
    enable_gqa does. causal: query i sees keys j <= i. Returns
    (B, Hq, T, D) with q's dtype, on q's device.
    Not allowed: F.scaled_dot_product_attention.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = gqa

# --8<-- [start:wrong]
import torch


def gqa(q, k, v, causal=True):
    B, Hq, T, D = q.shape
    if Hq % k.shape[1]:
        raise ValueError(f"{Hq} query heads can't share {k.shape[1]} KV heads")
    G = Hq // k.shape[1]
    k, v = k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / D**0.5
    if causal:
        ok = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~ok, float("-inf"))
    return scores.softmax(dim=-1) @ v
# --8<-- [end:wrong]

_wrong = gqa
WRONG_MESSAGE = "heads 0-1 share KV head 0: use repeat_interleave(G, dim=1)"

# --8<-- [start:solution]
import torch


def gqa(q, k, v, causal=True):
    B, Hq, T, D = q.shape
    if Hq % k.shape[1]:
        raise ValueError(f"{Hq} query heads can't share {k.shape[1]} KV heads")
    G = Hq // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / D**0.5
    if causal:
        ok = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~ok, float("-inf"))
    return scores.softmax(dim=-1) @ v
# --8<-- [end:solution]

_solution = gqa

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(gqa):
    import torch
    import torch.nn.functional as F

    step = checks("C15", "call", "device", "shape", "head mapping", "values", "ratios", "gradients")
    sdpa = ("scaled_dot_product_attention", "scaled_dot_product_flash_attention_for_cpu")

    def run(*args, **kwargs):
        with forbid(*sdpa):
            return call(gqa, *args, **kwargs)

    def reference(q, k, v, causal=True):
        out = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal, enable_gqa=True)
        return out.to(q.dtype)

    def inputs(Hq, Hkv, dtype=torch.float64, device="cpu", B=2, T=5, D=4):
        return (randn(B, Hq, T, D, seed=0, dtype=dtype, device=device),
                randn(B, Hkv, T, D, seed=1, dtype=dtype, device=device),
                randn(B, Hkv, T, D, seed=2, dtype=dtype, device=device))

    q, k, v = inputs(4, 2)
    with step("call"):
        out = run(q, k, v)
    with step("device"):
        note = on_fake_gpu(gqa, q, k, v, like="q")
    with step("shape"):
        close(out, reference(q, k, v), "the output", atol=float("inf"))
    with step("head mapping"):
        tiled = reference(q, k.repeat(1, 2, 1, 1), v.repeat(1, 2, 1, 1))
        assert not torch.allclose(out, tiled), (
            "query head 1 used KV head 1. With 4 query heads and 2 KV heads, "
            "heads 0-1 share KV head 0: use repeat_interleave(G, dim=1), or view q as (B, Hkv, G, T, D)"
        )
        close(out, reference(q, k, v), "4 query heads over 2 KV heads")
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                q, k, v = inputs(6, 2, dtype, dev)
                for causal in (True, False):
                    close(run(q, k, v, causal=causal), reference(q, k, v, causal), f"causal={causal}, {dtype} on {dev}")
    with step("ratios"):
        for hq, hkv, what in ((4, 1, "one KV head (MQA)"), (3, 3, "as many KV heads as query heads (MHA)")):
            q, k, v = inputs(hq, hkv)
            close(run(q, k, v), reference(q, k, v), what)
        q, k, v = inputs(4, 3)
        raised = None
        try:
            gqa(q, k, v)
        except Exception as error:
            raised = error
        assert isinstance(raised, ValueError), (
            f"4 query heads over 3 KV heads must raise ValueError (4 is not a multiple of 3), not {raised!r}"
        )
    with step("gradients"):
        q, k, v = inputs(4, 2, B=1, T=3, D=2)
        gradcheck64(gqa, [q, k, v], names=["q", "k", "v"], reference=reference)
    where = ", ".join(map(str, devices()))
    return f"C15 passes: matches SDPA(enable_gqa=True), MQA to MHA, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C15 passes")
    with pytest.raises(AssertionError, match=r"^C15 · check 1/7 \(call\): gqa raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C15 · check 4/7 \(head mapping\): query head 1 used KV head 1\. .*"
                       + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit tests: MQA (one KV head) and MHA (as many as query heads)
    for hq, hkv in ((4, 1), (2, 2)):
        q, k, v = (randn(1, h, 3, 4, seed=s, dtype=torch.float64) for s, h in enumerate((hq, hkv, hkv)))
        close(_wrong(q, k, v), _solution(q, k, v))
    with pytest.raises(ValueError, match="can't share"):
        _wrong(torch.ones(1, 4, 2, 2), torch.ones(1, 3, 2, 2), torch.ones(1, 3, 2, 2))


if __name__ == "__main__":
    _check()
