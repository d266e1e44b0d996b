"""C8 · Conv2d via unfold (im2col)."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1):
    """The output of F.conv2d(x, weight, bias, stride, padding, dilation).

    x: (N, C, H, W); weight: (Co, C, kh, kw); bias: (Co,) or None.
    stride, padding, dilation: an int or an (h, w) pair. Returns
    (N, Co, Ho, Wo) in x's dtype, on x's device. N may be 0. Build the
    patches with F.unfold and do the rest with one matmul.
    Not allowed: F.conv2d, torch.convolution.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = conv2d

# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    (s0, s1), (p0, p1), (d0, d1) = map(pair, (stride, padding, dilation))
    N, C, H, W = x.shape
    Co, _, kh, kw = weight.shape
    Ho = (H + 2 * p0 - d0 * (kh - 1) - 1) // s0 + 1
    Wo = (W + 2 * p1 - d1 * (kw - 1) - 1) // s1 + 1
    cols = F.unfold(x, (kh, kw), (d0, d1), (p0, p1), (s0, s1))
    w2d = weight.reshape(Co, -1)  # (Co, C·kh·kw), unfold's row order
    out = (cols.transpose(1, 2) @ w2d.T).view(N, Co, Ho, Wo)
    return out if bias is None else out + bias.view(1, Co, 1, 1)
# --8<-- [end:wrong]

_wrong = conv2d
WRONG_MESSAGE = (
    "right values in the wrong places: your matmul gives (N, L, Co) and a view as (N, Co, Ho, Wo) does not move Co "
    "before the positions"
)

# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    (s0, s1), (p0, p1), (d0, d1) = map(pair, (stride, padding, dilation))
    N, C, H, W = x.shape
    Co, _, kh, kw = weight.shape
    Ho = (H + 2 * p0 - d0 * (kh - 1) - 1) // s0 + 1
    Wo = (W + 2 * p1 - d1 * (kw - 1) - 1) // s1 + 1
    cols = F.unfold(x, (kh, kw), (d0, d1), (p0, p1), (s0, s1))
    w2d = weight.reshape(Co, -1)  # (Co, C·kh·kw), unfold's row order
    out = (w2d @ cols).view(N, Co, Ho, Wo)
    return out if bias is None else out + bias.view(1, Co, 1, 1)
# --8<-- [end:solution]

_solution = conv2d

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(conv2d):
    import torch
    import torch.nn.functional as F

    step = checks("C8", "forward", "device", "shape", "values", "gradients", "edges")
    banned = ("conv2d", "convolution", "_convolution", "cudnn_convolution", "mkldnn_convolution")

    def run(*args, **kwargs):
        with forbid(*banned):
            return call(conv2d, *args, **kwargs)

    def reference(x, w, b=None, **kw):
        return F.conv2d(x.double(), w.double(), None if b is None else b.double(), **kw).to(x.dtype)

    x, w, b = randn(2, 3, 7, 9, dtype=torch.float64), randn(4, 3, 2, 3, seed=1, dtype=torch.float64), randn(4, seed=2)
    cases = [  # (what, keyword arguments): a 2×3 kernel, H ≠ W, odd sizes throughout
        ("stride 1, no padding", {}),
        ("stride (2, 1), padding 1", {"stride": (2, 1), "padding": 1}),
        ("dilation 2, padding (2, 1)", {"dilation": 2, "padding": (2, 1)}),
        ("stride 3, padding (1, 2), dilation (1, 2)", {"stride": 3, "padding": (1, 2), "dilation": (1, 2)}),
    ]
    with step("forward"):
        out = run(x, w, b.double())
        assert isinstance(out, torch.Tensor), f"conv2d returned a {type(out).__name__}, not a tensor"
    with step("device"):
        note = on_fake_gpu(conv2d, x, w, b, stride=(2, 1), padding=1, dilation=2)
    with step("shape"):
        for what, kw in cases:
            want = reference(x, w, **kw)
            got = run(x, w, **kw)
            assert getattr(got, "shape", None) == want.shape, (
                f"{what}: x (2, 3, 7, 9) and weight (4, 3, 2, 3) gave {tuple(getattr(got, 'shape', ()))}, "
                f"expected {tuple(want.shape)}: Ho = (H + 2p − d·(kh − 1) − 1) // s + 1, and the same for Wo"
            )
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                args = [t.to(dev, dtype) for t in (x, w, b)]
                for what, kw in cases:
                    got, want = run(*args, **kw), reference(*args, **kw)
                    bare = reference(*args[:2], **kw)  # the same mistake, with the bias added after it
                    scrambled = bare.flatten(2).transpose(1, 2).reshape(want.shape) + (want - bare)
                    if dtype == torch.float64 and not torch.allclose(got, want) and torch.allclose(got, scrambled):
                        raise AssertionError(
                            f"{what}: right values in the wrong places: your matmul gives (N, L, Co) and a view as "
                            "(N, Co, Ho, Wo) does not move Co before the positions"
                        )
                    close(got, want, f"{what}, {dtype} on {dev}")
    with step("gradients"):
        xs, ws, bs = randn(1, 2, 4, 5, dtype=torch.float64), randn(2, 2, 2, 3, seed=1), randn(2, seed=2)
        kw = {"stride": (2, 1), "padding": 1, "dilation": (1, 2)}
        gradcheck64(lambda x, w, b: conv2d(x, w, b, **kw), [xs, ws, bs], names=["x", "weight", "bias"],
                    reference=lambda x, w, b: F.conv2d(x, w, b, **kw))
    with step("edges"):
        for what, xe, we, be in (
            ("an empty batch (N = 0)", x[:0], w, b.double()),
            ("N = 1, C = 1, Co = 1", x[:1, :1], w[:1, :1], b[:1].double()),
            ("a 1×1 kernel", x, w[:, :, :1, :1], None),
            ("a kernel as large as the padded input", x[:, :, :2, :1], w, b.double()),
            ("a non-contiguous x (channels last)", x.to(memory_format=torch.channels_last), w, None),
            ("a non-contiguous x (a transposed view)", x.transpose(2, 3), w, None),
            ("values of 1e30", x * 1e30, w, None),
        ):
            close(run(xe, we, be, padding=(0, 1)), reference(xe, we, be, padding=(0, 1)), f"{what}, padding (0, 1)")
    where = ", ".join(map(str, devices()))
    return f"C8 passes: matches F.conv2d with stride, padding and dilation on {where}, gradients too; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch.nn.functional as F

    assert grade(_solution).startswith("C8 passes")
    with pytest.raises(AssertionError, match=r"^C8 · check 1/6 \(forward\): conv2d raised NotImplementedError"):
        grade(_stub)
    values = r"^C8 · check 4/6 \(values\): stride 1, no padding: "
    with pytest.raises(AssertionError, match=values + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes a test with one output channel and one image: (1, L, 1) and (1, 1, L) agree
    x, w = randn(1, 3, 5, 5), randn(1, 3, 3, 3, seed=1)
    assert torch.allclose(_wrong(x, w), F.conv2d(x, w), atol=1e-5)

    def no_dilation(x, weight, bias=None, stride=1, padding=0, dilation=1):
        return _solution(x, weight, bias, stride, padding)

    with pytest.raises(AssertionError, match=r"^C8 · check 3/6 \(shape\): dilation 2, padding \(2, 1\): .* gave "
                       r"\(2, 4, 10, 9\), expected \(2, 4, 9, 7\): Ho = "):
        grade(no_dilation)

    def aliased(x, weight, bias=None, stride=1, padding=0, dilation=1):
        conv = F.conv2d
        return conv(x, weight, bias, stride, padding, dilation)

    forbidden = r"^C8 · check 1/6 \(forward\): calls torch\.conv2d: the task is to implement it"
    with pytest.raises(AssertionError, match=forbidden):
        grade(aliased)

    def returns_list(*args, **kwargs):
        return [0.0]

    with pytest.raises(AssertionError, match=r"^C8 · check 1/6 \(forward\): conv2d returned a list, not a tensor"):
        grade(returns_list)


if __name__ == "__main__":
    _check()
