"""C38 · Int8 per-channel weight quantization with a dequantising matmul."""

# --8<-- [start:prompt]
import torch


def quantize_per_channel(w):
    """Symmetric int8 weight quantization, one scale per output channel.

    w (out, in) float. Returns q (out, in) int8 in [-127, 127] and scale
    (out,) float32 = max |row| / 127, positive even for an all-zero row,
    so that w ≈ q * scale[:, None].
    """
    raise NotImplementedError


def int8_linear(x, q, scale, bias=None):
    """x @ (q * scale[:, None]).T + bias, in x's dtype, with the scale
    applied after the matmul (no dequantised copy of the weight)."""
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (quantize_per_channel, int8_linear)


# --8<-- [start:wrong]
import torch


def quantize_per_channel(w):
    scale = w.abs().amax().float().clamp(min=1e-12).repeat(len(w)) / 127
    q = torch.round(w.float() / scale[:, None]).clamp(-127, 127)
    return q.to(torch.int8), scale


def int8_linear(x, q, scale, bias=None):
    out = (x @ q.to(x.dtype).T) * scale.to(x.dtype)
    return out if bias is None else out + bias
# --8<-- [end:wrong]


_wrong = (quantize_per_channel, int8_linear)
WRONG_MESSAGE = 'use one scale per output channel'


# --8<-- [start:solution]
import torch


def quantize_per_channel(w):
    scale = w.abs().amax(dim=1).float().clamp(min=1e-12) / 127
    q = torch.round(w.float() / scale[:, None]).clamp(-127, 127)
    return q.to(torch.int8), scale


def int8_linear(x, q, scale, bias=None):
    out = (x @ q.to(x.dtype).T) * scale.to(x.dtype)
    return out if bias is None else out + bias
# --8<-- [end:solution]


_solution = (quantize_per_channel, int8_linear)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(quantize_per_channel, int8_linear):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C38 · {what}: {msg}")

    gen = torch.Generator().manual_seed(0)
    w = torch.randn(6, 16, generator=gen)
    w[2] = 0.0  # an all-zero row
    w[3] *= 0.002 / w[3].abs().max()  # a row of tiny weights
    x = torch.randn(5, 16, generator=gen)
    bias = torch.randn(6, generator=gen)
    call(quantize_per_channel, w), call(int8_linear, x, w.to(torch.int8), torch.ones(6))  # signature, on the CPU
    on_fake_gpu(lambda w, x: int8_linear(x, *quantize_per_channel(w)), w, x, like="w")
    for dev in devices():
        wd, xd, bd = w.to(dev), x.to(dev), bias.to(dev)
        q, scale = call(quantize_per_channel, wd)
        if not (torch.is_tensor(q) and q.dtype == torch.int8 and q.shape == w.shape):
            fail("q", f"q must be an int8 tensor of shape {tuple(w.shape)}")
        if not (torch.isfinite(scale).all() and (scale > 0).all()):
            fail("scale", f"row 2 is all zeros and its scale is {scale[2].item()}: w/0 is NaN, and casting NaN to "
                 "int8 is undefined; clamp the scale to a small positive value")
        if q[3].eq(0).all():
            fail("per channel", f"row 3 (max |w| = 0.002) quantised to all zeros (scale {scale[3].item():.3g}): use "
                 "one scale per output channel")
        close(scale, (w.abs().amax(1).clamp(min=1e-12) / 127).to(dev), "scale: max |row| / 127, float32 (out,)",
              1e-6, 1e-6)
        if q.min() < -127 or q.max() > 127:
            fail("range", "symmetric int8 uses [-127, 127]: -128 has no positive twin")
        rel = ((wd[3] - q[3].float() * scale[3]).norm() / wd[3].norm()).item()
        if rel > 0.01:
            fail("tiny row", f"row 3 is reconstructed with {rel:.1%} relative error; per-channel scales keep it < 1%")
        err = (wd - q.float() * scale[:, None]).abs()
        if (err > scale[:, None] / 2 + 1e-7).any():
            fail("rounding", f"|w - q * scale| reached {err.max().item():.3g}; round to nearest keeps it within "
                 "scale/2")
        deq = q.float() * scale[:, None]
        close(call(int8_linear, xd, q, scale, bd), xd @ deq.T + bd, "int8_linear against x @ (q * scale).T + bias",
              1e-4, 1e-4)
        close(call(int8_linear, xd, q, scale), xd @ deq.T, "int8_linear without bias", 1e-4, 1e-4)
        bf = call(int8_linear, xd.bfloat16(), q, scale)
        close(bf, (xd @ deq.T).bfloat16(), "bfloat16 activations: a bfloat16 output", 5e-2, 2e-2)
    return "C38 passes: int8 per-channel weights within scale/2, positive scales, int8_linear in the input's dtype"


def _check():
    import re

    import pytest

    assert grade(*_solution).startswith("C38 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    with pytest.raises(NotImplementedError):
        _stub[1](None, None, None)

    # mutants of the reference, one per remaining failure, each with its exact message
    import torch

    quantize, linear = _solution

    def quantize_with(clamp=1e-12, steps=127, lo=-127, rounding=torch.round):
        def attempt(w):
            scale = w.abs().amax(dim=1).float().clamp(min=clamp)
            q = rounding(w.float() / (scale[:, None] / steps)).clamp(lo, 127)
            return q.to(torch.int8), scale / 127

        return attempt

    def one_off(w):  # one weight of row 0 a step away from its nearest level
        q, scale = quantize(w)
        q[0, 0] += 1 if q[0, 0] < 127 else -1
        return q, scale

    for attempt, message in [
        (lambda w: (quantize(w)[0].int(), quantize(w)[1]), r"^C38 · q: q must be an int8 tensor of shape \(6, 16\)$"),
        (quantize_with(clamp=0.0), r"^C38 · scale: row 2 is all zeros and its scale is 0.0: w/0 is NaN"),
        (quantize_with(steps=128, lo=-128), r"^C38 · range: symmetric int8 uses \[-127, 127\]: -128 has no positive"),
        (quantize_with(rounding=torch.trunc), r"^C38 · tiny row: row 3 is reconstructed with \d+.\d% relative error"),
        (one_off, r"^C38 · rounding: \|w - q \* scale\| reached 0.0099\d; round to nearest keeps it within"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt, linear)


if __name__ == "__main__":
    _check()
