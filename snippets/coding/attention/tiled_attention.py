"""C17 · FlashAttention-style tiled attention with online softmax."""

# --8<-- [start:prompt]
import torch


def flash_attention(q, k, v, causal=False, block=16):
    """softmax(q kᵀ / √D) v, one tile of `block` keys at a time.

    q, k, v: (B, H, T, D), any float dtype; causal: query i sees keys
    j <= i. Keep, per query row, a running max, a running denominator and
    an output accumulator, and update them tile by tile: never build the
    (T, T) score matrix. T need not be a multiple of block, and block may
    exceed T. Returns (B, H, T, D) with q's dtype, on q's device.
    Not allowed: F.scaled_dot_product_attention, softmax, logsumexp.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = flash_attention

# --8<-- [start:wrong]
import math

import torch


def flash_attention(q, k, v, causal=False, block=16):
    T, scale = q.shape[-2], 1 / math.sqrt(q.shape[-1])
    tiles = []
    for i in range(0, T, block):  # a tile of queries
        qi = q[..., i : i + block, :] * scale
        m = torch.full_like(qi[..., :1], float("-inf"))  # running max
        den = torch.zeros_like(m)  # running denominator
        acc = torch.zeros_like(qi)  # running numerator
        for j in range(0, min(T, i + block) if causal else T, block):
            s = qi @ k[..., j : j + block, :].transpose(-2, -1)
            if causal:
                rows = torch.arange(i, i + s.shape[-2], device=q.device)
                cols = torch.arange(j, j + s.shape[-1], device=q.device)
                s = s.masked_fill(cols > rows[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p, alpha = torch.exp(s - m_new), torch.exp(m - m_new)
            den = den + p.sum(-1, keepdim=True)
            acc = alpha * acc + p @ v[..., j : j + block, :]
            m = m_new
        tiles.append(acc / den)
    return torch.cat(tiles, dim=-2)
# --8<-- [end:wrong]

_wrong = flash_attention
WRONG_MESSAGE = "multiply both the accumulator and the denominator by exp(m_old - m_new)"

# --8<-- [start:solution]
import math

import torch


def flash_attention(q, k, v, causal=False, block=16):
    T, scale = q.shape[-2], 1 / math.sqrt(q.shape[-1])
    tiles = []
    for i in range(0, T, block):  # a tile of queries
        qi = q[..., i : i + block, :] * scale
        m = torch.full_like(qi[..., :1], float("-inf"))  # running max
        den = torch.zeros_like(m)  # running denominator
        acc = torch.zeros_like(qi)  # running numerator
        for j in range(0, min(T, i + block) if causal else T, block):
            s = qi @ k[..., j : j + block, :].transpose(-2, -1)
            if causal:
                rows = torch.arange(i, i + s.shape[-2], device=q.device)
                cols = torch.arange(j, j + s.shape[-1], device=q.device)
                s = s.masked_fill(cols > rows[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p, alpha = torch.exp(s - m_new), torch.exp(m - m_new)
            den = alpha * den + p.sum(-1, keepdim=True)
            acc = alpha * acc + p @ v[..., j : j + block, :]
            m = m_new
        tiles.append(acc / den)
    return torch.cat(tiles, dim=-2)
# --8<-- [end:solution]

_solution = flash_attention

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, largest_tensor, on_fake_gpu, randn = (
    _KIT[n]
    for n in (
        "call", "checks", "close", "devices", "forbid", "gradcheck64", "largest_tensor", "on_fake_gpu", "randn"
    )
)


def grade(flash_attention):
    import torch
    import torch.nn.functional as F

    step = checks(
        "C17", "call", "device", "shape", "first tile", "running max", "values", "large scores", "gradients", "memory"
    )
    banned = ("scaled_dot_product_attention", "scaled_dot_product_flash_attention_for_cpu", "softmax", "logsumexp")

    def run(*args, **kwargs):
        with forbid(*banned):
            return call(flash_attention, *args, **kwargs)

    def reference(q, k, v, causal=False):
        return F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal).to(q.dtype)

    def inputs(B=1, H=2, T=40, D=4, dtype=torch.float64, device="cpu", seed=0):
        return tuple(randn(B, H, T, D, seed=seed + n, dtype=dtype, device=device) for n in range(3))

    q, k, v = inputs()
    with step("call"):
        out = run(q, k, v, block=16)
    with step("device"):
        note = on_fake_gpu(flash_attention, *inputs(T=5), causal=True, block=8, like="q")
    with step("shape"):
        close(out, reference(q, k, v), "the output", atol=float("inf"))
    # positive q; keys of the first tile in [2, 3], the others in [0, 1]: each row's max is in tile 0
    pos_q = q.abs() + 0.1
    small = k.abs().remainder(1.0)
    first = torch.cat([small[..., :16, :] + 2, small[..., 16:, :]], dim=-2)
    last = torch.cat([small[..., :32, :], small[..., 32:, :] + 2], dim=-2)
    with step("first tile"):
        close(run(pos_q, first, v, block=16), reference(pos_q, first, v), "every row's max in the first tile")
    with step("running max"):
        assert torch.allclose(run(pos_q, last, v, block=16), reference(pos_q, last, v)), (
            "right while the max stays in the first tile, off when a later tile raises the running max: "
            "multiply both the accumulator and the denominator by exp(m_old - m_new)"
        )
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                q, k, v = inputs(T=20, dtype=dtype, device=dev)
                blocks = (8, 7, 32) if dtype == torch.float64 else (8,)  # 20 = 2·8 + 4 = 2·7 + 6; one tile > T
                for causal in (False, True):
                    for block in blocks:
                        what = f"causal={causal}, block={block}, T=20, {dtype} on {dev}"
                        close(run(q, k, v, causal=causal, block=block), reference(q, k, v, causal), what)
    with step("large scores"):
        q, k, v = inputs(T=12)
        q, k = q * 30, k * 30  # scores near ±1e3: exp overflows without the max
        got = run(q, k, v, causal=True, block=5)
        assert got.isfinite().all(), "scores near 1e3 gave inf or NaN: subtract the running max before exp"
        close(got, reference(q, k, v, True), "scores near 1e3")
    with step("gradients"):
        q, k, v = inputs(H=1, T=3, D=1)
        gradcheck64(
            lambda q, k, v: flash_attention(q, k, v, causal=True, block=2),
            [q, k, v],
            names=["q", "k", "v"],
            reference=lambda q, k, v: reference(q, k, v, True),
        )
    with step("memory"):
        B, H, T = 1, 2, 40
        q, k, v = inputs(B, H, T)
        big = largest_tensor(lambda: flash_attention(q, k, v, causal=True, block=8))
        assert big.numel() < B * H * T * T // 2, (
            f"an op produced a {tuple(big)} tensor, at least half the {B}x{H}x{T}x{T} score matrix: "
            "work tile by tile"
        )
    where = ", ".join(map(str, devices()))
    return f"C17 passes: equals SDPA, causal, any block size, largest tensor {tuple(big)}, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math
    import re

    import pytest

    assert grade(_solution).startswith("C17 passes")
    with pytest.raises(AssertionError, match=r"^C17 · check 1/9 \(call\): flash_attention raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C17 · check 5/9 \(running max\): .*" + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: one tile (T <= block), where nothing is rescaled
    q, k, v = (randn(1, 2, 8, 4, seed=s, dtype=torch.float64) for s in range(3))
    close(_wrong(q, k, v, causal=True), _solution(q, k, v, causal=True))

    # each other failure names its mistake
    def naive(q, k, v, causal=False, block=16):  # right numbers, the whole T x T matrix
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
        p = torch.exp(s - s.amax(-1, keepdim=True))
        return p @ v / p.sum(-1, keepdim=True)

    def softmaxed(q, k, v, causal=False, block=16):
        return torch.softmax(q @ k.transpose(-2, -1), -1) @ v

    def no_max(q, k, v, causal=False, block=16):  # exact maths, exp(s) overflows
        T, scale = q.shape[-2], 1 / math.sqrt(q.shape[-1])
        num = torch.zeros_like(q)
        den = torch.zeros_like(q[..., :1])
        for j in range(0, T, block):
            p = torch.exp(q @ k[..., j : j + block, :].transpose(-2, -1) * scale)
            if causal:
                p = p * torch.ones_like(p, dtype=torch.bool).tril(-j)
            num, den = num + p @ v[..., j : j + block, :], den + p.sum(-1, keepdim=True)
        return num / den

    def detached(q, k, v, causal=False, block=16):
        return _solution(q.detach(), k.detach(), v.detach(), causal, block)

    def cpu_mask(q, k, v, causal=False, block=16):
        if causal:
            torch.ones(2, dtype=torch.bool) & (q[0, 0, 0, :2] > 0)
        return _solution(q, k, v, causal, block)

    cases = [
        (cpu_mask, r"check 2/9 \(device\): not device-agnostic"),
        (softmaxed, r"check 1/9 \(call\): calls torch\.softmax: the task is to implement it"),
        (naive, r"check 9/9 \(memory\): an op produced a \(2, 40, 40\) tensor, at least half the 1x2x40x40"),
        (no_max, r"check 7/9 \(large scores\): scores near 1e3 gave inf or NaN"),
        (detached, r"check 8/9 \(gradients\): no output requires grad"),
    ]
    for attempt, message in cases:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
