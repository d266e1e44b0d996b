"""C16 · Rotary position embeddings."""

# --8<-- [start:prompt]
import torch


def apply_rope(x, positions, base=10000.0):
    """Rotate x by its positions, RoPE's half-split layout (GPT-NeoX, HF Llama).

    x: (B, H, T, D), D even (else ValueError); positions: (T,) integers on
    x's device, which may start at an offset (decoding with a cache).
    Dimension i pairs with i + D/2, for i < D/2, and that pair is rotated by
    the angle positions[t] * base ** (-2i / D). Work in float32 (float64
    when x is float64): bfloat16 cannot even hold position 8191. Returns
    x's shape and dtype, on x's device.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = apply_rope

# --8<-- [start:wrong]
import torch


def apply_rope(x, positions, base=10000.0):
    D = x.shape[-1]
    if D % 2:
        raise ValueError(f"RoPE rotates pairs: D={D} must be even")
    dt = torch.promote_types(x.dtype, torch.float32)
    i = torch.arange(D // 2, dtype=dt, device=x.device)
    angle = positions.to(dt)[:, None] * base ** (-2 * i / D)  # (T, D/2)
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x[..., 0::2].to(dt), x[..., 1::2].to(dt)
    out = [x1 * cos - x2 * sin, x1 * sin + x2 * cos]
    return torch.stack(out, dim=-1).flatten(-2).to(x.dtype)
# --8<-- [end:wrong]

_wrong = apply_rope
WRONG_MESSAGE = "your rotation pairs dimensions (0, 1), (2, 3), ...: the interleaved layout"

# --8<-- [start:solution]
import torch


def apply_rope(x, positions, base=10000.0):
    D = x.shape[-1]
    if D % 2:
        raise ValueError(f"RoPE rotates pairs: D={D} must be even")
    dt = torch.promote_types(x.dtype, torch.float32)
    i = torch.arange(D // 2, dtype=dt, device=x.device)
    angle = positions.to(dt)[:, None] * base ** (-2 * i / D)  # (T, D/2)
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x[..., : D // 2].to(dt), x[..., D // 2 :].to(dt)
    out = [x1 * cos - x2 * sin, x1 * sin + x2 * cos]
    return torch.cat(out, dim=-1).to(x.dtype)
# --8<-- [end:solution]

_solution = apply_rope

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(apply_rope):
    import torch

    step = checks("C16", "call", "device", "shape", "rotation", "layout", "values", "precision", "gradients", "edges")

    def reference(x, pos, base=10000.0, pairs="half"):
        """The grader's own RoPE (no torch op exists): float32 angles, float64 rotation."""
        D = x.shape[-1]
        dt = torch.promote_types(x.dtype, torch.float32)
        i = torch.arange(D // 2, dtype=dt, device=x.device)
        angle = (pos.to(dt)[:, None] * base ** (-2 * i / D)).double()
        cos, sin = angle.cos(), angle.sin()
        half = D // 2
        perm = torch.arange(D, device=x.device)
        if pairs == "interleaved":  # (0, 1), (2, 3), ... : the same maths on permuted dims
            perm = torch.cat([perm[0::2], perm[1::2]])
        xd = x.double()[..., perm]
        x1, x2 = xd[..., :half], xd[..., half:]
        out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
        return out[..., perm.argsort()].to(x.dtype)

    def run(x, pos, **kwargs):
        return call(apply_rope, x, pos, **kwargs)

    x = randn(2, 3, 5, 8, dtype=torch.float64)
    pos = torch.arange(5) + 7  # an offset, as when decoding after 7 cached tokens
    with step("call"):
        out = run(x, pos)
    with step("device"):
        note = on_fake_gpu(apply_rope, x, pos, like="x")
    with step("shape"):
        close(out, reference(x, pos), "the output", atol=float("inf"))
    with step("rotation"):  # what every RoPE layout shares
        norms = out.norm(dim=-1)
        assert torch.allclose(norms, x.norm(dim=-1)), "a rotation keeps each vector's length: yours changed it"
        zero = run(x[:, :, :1], torch.zeros(1, dtype=torch.long))
        assert torch.allclose(zero, x[:, :, :1]), "position 0 must leave x unchanged (every angle is 0)"
        q, k = randn(1, 1, 6, 8, seed=1, dtype=torch.float64), randn(1, 1, 6, 8, seed=2, dtype=torch.float64)
        p = torch.arange(6)
        near = run(q, p) @ run(k, p).transpose(-2, -1)
        far = run(q, p + 100) @ run(k, p + 100).transpose(-2, -1)
        assert torch.allclose(near, far), (
            "q·k changed when every position moved by 100: a score must depend only on the distance m - n"
        )
    with step("layout"):
        assert not torch.allclose(out, reference(x, pos, pairs="interleaved")), (
            "your rotation pairs dimensions (0, 1), (2, 3), ...: the interleaved layout (the RoPE paper's, GPT-J's). "
            "This spec pairs i with i + D/2. Both are RoPE; the checkpoint decides"
        )
        close(out, reference(x, pos), "positions 7-11, float64")
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                xd, p = randn(2, 2, 5, 16, seed=3, dtype=dtype, device=dev), torch.arange(5, device=dev) * 3
                close(run(xd, p, base=500.0), reference(xd, p, 500.0), f"base=500, {dtype} on {dev}")
    with step("precision"):
        xb = randn(1, 2, 4, 64, seed=4, dtype=torch.bfloat16)
        far = torch.tensor([8189, 8190, 8191, 8192])
        close(run(xb, far), reference(xb, far), "bfloat16 at positions 8189-8192 (compute the angles in float32)")
    with step("gradients"):
        xs, p = randn(1, 2, 3, 4, seed=5, dtype=torch.float64), torch.arange(3) + 2
        gradcheck64(lambda t: apply_rope(t, p), [xs], names=["x"], reference=lambda t: reference(t, p))
    with step("edges"):
        one = randn(2, 1, 1, 6, seed=6, dtype=torch.float64)
        close(run(one, torch.tensor([3])), reference(one, torch.tensor([3])), "T=1 at position 3")
        strided = randn(2, 5, 3, 8, seed=7, dtype=torch.float64).transpose(1, 2)  # (B, H, T, D), not contiguous
        close(run(strided, torch.arange(5)), reference(strided, torch.arange(5)), "non-contiguous x")
        raised = None
        try:
            apply_rope(randn(1, 1, 2, 5), torch.arange(2))
        except Exception as error:
            raised = error
        assert isinstance(raised, ValueError), f"D=5 must raise ValueError (RoPE rotates pairs), not {raised!r}"
    where = ", ".join(map(str, devices()))
    return f"C16 passes: a rotation, relative, half-split layout, bfloat16 to position 8192, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C16 passes")
    with pytest.raises(AssertionError, match=r"^C16 · check 1/9 \(call\): apply_rope raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C16 · check 5/9 \(layout\): " + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt is a real RoPE: a rotation, relative, the identity at position 0
    x = randn(1, 1, 6, 8, dtype=torch.float64)
    p = torch.arange(6)
    assert torch.allclose(_wrong(x, p).norm(dim=-1), x.norm(dim=-1))
    assert torch.allclose(_wrong(x, p * 0), x)
    with pytest.raises(ValueError, match="must be even"):
        _wrong(torch.ones(1, 1, 1, 3), torch.arange(1))

    # each other failure names its mistake
    def unrotated(x, positions, base=10000.0):  # no rotate_half: x·cos + x·sin
        angle = positions.to(torch.float64)[:, None] * torch.ones(x.shape[-1], dtype=torch.float64, device=x.device)
        return (x * angle.cos() + x * angle.sin()).to(x.dtype)

    def from_one(x, positions, base=10000.0):  # positions counted from 1
        return _solution(x, positions + 1, base)

    def absolute(x, positions, base=10000.0):  # angles that grow as p² are not relative
        return _solution(x, positions * positions, base)

    def low_precision(x, positions, base=10000.0):  # angles in x's own dtype
        D = x.shape[-1]
        i = torch.arange(D // 2, dtype=x.dtype, device=x.device)
        angle = positions.to(x.dtype)[:, None] * base ** (-2 * i / D)
        x1, x2 = x[..., : D // 2], x[..., D // 2 :]
        return torch.cat([x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()], -1)

    def detached(x, positions, base=10000.0):
        return _solution(x, positions, base).detach()

    def unchecked(x, positions, base=10000.0):  # odd D goes through to a shape error
        return _solution(x, positions, base) if x.shape[-1] % 2 == 0 else x[..., :2] + x[..., :3]

    def wrong_base(x, positions, base=10000.0):
        return _solution(x, positions)

    cases = [
        (unrotated, r"check 4/9 \(rotation\): a rotation keeps each vector's length"),
        (from_one, r"check 4/9 \(rotation\): position 0 must leave x unchanged"),
        (absolute, r"check 4/9 \(rotation\): q·k changed when every position moved by 100"),
        (wrong_base, r"check 6/9 \(values\): base=500, torch.float64 on cpu"),
        (low_precision, r"check 7/9 \(precision\): bfloat16 at positions 8189-8192 .*values differ"),
        (detached, r"check 8/9 \(gradients\): no output requires grad"),
        (unchecked, r"check 9/9 \(edges\): D=5 must raise ValueError .* not RuntimeError"),
    ]
    for attempt, message in cases:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
