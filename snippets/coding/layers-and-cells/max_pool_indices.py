"""C9 · MaxPool2d with indices."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """F.max_pool2d(x, kernel_size, stride, padding, return_indices=True).

    x: (N, C, H, W), floating point. kernel_size, stride, padding: an
    int or an (h, w) pair; stride None means kernel_size; padding is at
    most half the kernel. Returns (values, indices), both (N, C, Ho, Wo)
    with Ho = (H + 2·ph − kh) // sh + 1 (Wo alike). indices are int64
    flat positions r·W + c in x's own, unpadded H×W plane; on a tie, the
    first maximum in row-major order. Gradients flow to x.
    Not allowed: F.max_pool2d, F.adaptive_max_pool2d.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = max_pool2d

# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


def max_pool2d(x, kernel_size, stride=None, padding=0):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    (kh, kw), (ph, pw) = pair(kernel_size), pair(padding)
    sh, sw = pair(kernel_size if stride is None else stride)
    N, C, H, W = x.shape
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    planes = x.reshape(N * C, 1, H, W)
    cols = F.unfold(planes, (kh, kw), padding=(ph, pw), stride=(sh, sw))
    values, arg = cols.max(dim=1)  # (N·C, Ho·Wo): position in the window
    arg, dev = arg.view(-1, Ho, Wo), x.device
    r = torch.arange(Ho, device=dev)[:, None] * sh - ph + arg // kw
    c = torch.arange(Wo, device=dev) * sw - pw + arg % kw
    return values.view(N, C, Ho, Wo), (r * W + c).view(N, C, Ho, Wo)
# --8<-- [end:wrong]

_wrong = max_pool2d
WRONG_MESSAGE = "the padding won the max: padding must never be chosen, whatever the input's sign"

# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def max_pool2d(x, kernel_size, stride=None, padding=0):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    (kh, kw), (ph, pw) = pair(kernel_size), pair(padding)
    sh, sw = pair(kernel_size if stride is None else stride)
    N, C, H, W = x.shape
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    planes = x.reshape(N * C, 1, H, W)
    planes = F.pad(planes, (pw, pw, ph, ph), value=-torch.inf)
    cols = F.unfold(planes, (kh, kw), stride=(sh, sw))
    values, arg = cols.max(dim=1)  # (N·C, Ho·Wo): position in the window
    arg, dev = arg.view(-1, Ho, Wo), x.device
    r = torch.arange(Ho, device=dev)[:, None] * sh - ph + arg // kw
    c = torch.arange(Wo, device=dev) * sw - pw + arg % kw
    return values.view(N, C, Ho, Wo), (r * W + c).view(N, C, Ho, Wo)
# --8<-- [end:solution]

_solution = max_pool2d

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(max_pool2d):
    import torch
    import torch.nn.functional as F

    step = checks("C9", "forward", "device", "shape", "padding", "values", "ties", "gradients", "edges")

    def run(*args, **kwargs):
        with forbid("max_pool2d", "max_pool2d_with_indices", "adaptive_max_pool2d"):
            out = call(max_pool2d, *args, **kwargs)
        assert isinstance(out, tuple) and len(out) == 2, "max_pool2d returns a pair (values, indices)"
        return out

    def reference(x, *args, **kwargs):
        values, indices = F.max_pool2d(x.double(), *args, **kwargs, return_indices=True)
        return values.to(x.dtype), indices

    def compare(x, what, *args, **kwargs):
        (values, indices), (want, want_i) = run(x, *args, **kwargs), reference(x, *args, **kwargs)
        close(values, want, f"the values for {what}")
        close(indices, want_i, f"the indices for {what}")

    x = randn(2, 3, 7, 9, dtype=torch.float64)
    cases = [  # (what, arguments after x): overlapping windows, sizes that do not divide, H ≠ W
        ("a 2×2 kernel (stride = kernel)", (2,), {}),
        ("a 3×3 kernel, stride 2, padding 1", (3, 2, 1), {}),
        ("a 3×2 kernel, stride (1, 2), padding (1, 0)", ((3, 2), (1, 2), (1, 0)), {}),
    ]
    with step("forward"):
        run(x, 2)
    with step("device"):
        note = on_fake_gpu(max_pool2d, x, 3, 2, 1)
    with step("shape"):
        for what, args, kw in cases:
            values, indices = run(x, *args, **kw)
            want, want_i = reference(x, *args, **kw)
            for got, name in ((values, "values"), (indices, "indices")):
                assert getattr(got, "shape", None) == want.shape, (
                    f"{what}: your {name} have shape {tuple(getattr(got, 'shape', ()))} for x (2, 3, 7, 9), "
                    f"expected {tuple(want.shape)}: Ho = (H + 2p − k) // s + 1, and the same for Wo"
                )
            assert indices.dtype == torch.int64, f"the indices are {indices.dtype}, expected torch.int64"
    with step("padding"):
        negative = -(x.abs() + 0.5)
        values, _ = run(negative, 3, 2, 1)
        want, _ = reference(negative, 3, 2, 1)
        won = torch.isclose(values, want.new_zeros(())) & (want < 0)
        assert not won.any(), (
            f"an all-negative x, a 3×3 kernel, stride 2, padding 1: {int(won.sum())} outputs are 0.0 where torch "
            f"gives values like {want[won][0].item():.3g}: the padding won the max: padding must never be chosen, "
            "whatever the input's sign"
        )
        compare(negative, "an all-negative x, a 3×3 kernel, stride 2, padding 1", 3, 2, 1)
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                for what, args, kw in cases:
                    compare(x.to(dev, dtype), f"{what}, {dtype} on {dev}", *args, **kw)
    with step("ties"):
        compare(torch.ones(1, 2, 4, 5, dtype=torch.float64), "a constant x, 2×2 windows, stride 1", 2, 1)
        compare(x.round(), "x rounded to integers (many ties), a 3×3 kernel, stride 2, padding 1", 3, 2, 1)
    with step("gradients"):
        small = randn(1, 1, 4, 5, dtype=torch.float64)
        for args in ((3, 1, 1), (2,)):  # overlapping windows: one input can be the max of several
            gradcheck64(lambda t, a=args: run(t, *a)[0], [small], names=["x"],
                        reference=lambda t, a=args: F.max_pool2d(t, *a))
    with step("edges"):
        compare(x[:1, :1], "N = 1, C = 1, a 3×3 kernel, padding 1", 3, 1, 1)
        compare(x, "a 1×1 kernel, stride 2", 1, 2)
        compare(x, "a 7×9 kernel (the whole plane)", (7, 9))
        compare(x.transpose(2, 3), "a non-contiguous x (a transposed view)", 3, 2, 1)
        compare(x.to(memory_format=torch.channels_last), "a channels-last x", 2)
        compare(x * 1e300, "values of 1e300", 3, 2, 1)
    where = ", ".join(map(str, devices()))
    return f"C9 passes: values, indices and gradients match F.max_pool2d on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch.nn.functional as F

    assert grade(_solution).startswith("C9 passes")
    with pytest.raises(AssertionError, match=r"^C9 · check 1/8 \(forward\): max_pool2d raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C9 · check 4/8 \(padding\): an all-negative x, .* 0\.0 where torch "
                       r"gives values like -\d\.\d+: " + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual test: a random x (half of it positive) without padding
    x = randn(2, 3, 6, 6)
    for got, want in zip(_wrong(x, 2), F.max_pool2d(x, 2, return_indices=True), strict=True):
        assert torch.equal(got, want)


if __name__ == "__main__":
    _check()
