"""C10 · EmbeddingBag (sum, mean) with offsets."""

# --8<-- [start:prompt]
import torch


def embedding_bag(
    indices, offsets, weight, mode="mean", per_sample_weights=None
):
    """F.embedding_bag(indices, weight, offsets, mode=mode, ...), 1-D form.

    indices: (L,) int64 rows of weight, L may be 0. offsets: (B,) int64,
    sorted, offsets[0] == 0: bag b is indices[offsets[b]:offsets[b + 1]],
    the last bag runs to L; repeated offsets make empty bags. weight:
    (V, D). mode: "sum" or "mean" (torch's default). per_sample_weights:
    (L,) or None, a scale for each looked-up row (mode "sum" only).
    Returns (B, D) in weight's dtype on weight's device; an empty bag
    gives a row of zeros.
    No Python loop over bags. Not allowed: F.embedding_bag, nn.EmbeddingBag.
    """
    raise NotImplementedError
# --8<-- [end:prompt]

_stub = embedding_bag

# --8<-- [start:wrong]
import torch


def embedding_bag(
    indices, offsets, weight, mode="mean", per_sample_weights=None
):
    L, B = indices.shape[0], offsets.shape[0]
    position = torch.arange(L, device=indices.device)
    bag = torch.searchsorted(offsets, position, right=True) - 1  # (L,)
    rows = weight[indices]  # (L, D)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    out = weight.new_zeros(B, weight.shape[1]).index_add(0, bag, rows)
    if mode == "mean":
        ends = torch.cat([offsets[1:], offsets.new_full((1,), L)])
        out = out / (ends - offsets)[:, None]
    return out
# --8<-- [end:wrong]

_wrong = embedding_bag
WRONG_MESSAGE = "is empty and came back nan (0/0); torch gives a row of zeros for an empty bag"

# --8<-- [start:solution]
import torch


def embedding_bag(
    indices, offsets, weight, mode="mean", per_sample_weights=None
):
    L, B = indices.shape[0], offsets.shape[0]
    position = torch.arange(L, device=indices.device)
    bag = torch.searchsorted(offsets, position, right=True) - 1  # (L,)
    rows = weight[indices]  # (L, D)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    out = weight.new_zeros(B, weight.shape[1]).index_add(0, bag, rows)
    if mode == "mean":
        ends = torch.cat([offsets[1:], offsets.new_full((1,), L)])
        out = out / (ends - offsets).clamp(min=1)[:, None]
    return out
# --8<-- [end:solution]

_solution = embedding_bag

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, count_ops, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n]
    for n in ("call", "checks", "close", "count_ops", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(embedding_bag):
    import torch
    import torch.nn.functional as F

    step = checks("C10", "forward", "device", "shape", "values", "empty bags", "gradients", "edges", "vectorised")

    def run(*args, **kwargs):
        with forbid("embedding_bag", "_embedding_bag", "_embedding_bag_forward_only"):
            return call(embedding_bag, *args, **kwargs)

    def reference(indices, offsets, weight, mode="mean", per_sample_weights=None):
        psw = None if per_sample_weights is None else per_sample_weights.double()
        out = F.embedding_bag(indices, weight.double(), offsets, mode=mode, per_sample_weights=psw)
        return out.to(weight.dtype)

    def tensor(values):
        return torch.tensor(values, dtype=torch.int64)

    weight = randn(10, 4, dtype=torch.float64)
    indices, offsets = tensor([3, 1, 4, 1, 5, 9, 2, 6]), tensor([0, 2, 3, 6])  # bags of 2, 1, 3, 2 rows
    scale = randn(8, seed=1, dtype=torch.float64)
    with step("forward"):
        out = run(indices, offsets, weight)
    with step("device"):
        note = on_fake_gpu(embedding_bag, indices, offsets, weight, "mean", like="weight")
    with step("shape"):
        close(out, reference(indices, offsets, weight), "the output for 4 bags, weight (10, 4)", float("inf"))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32, torch.bfloat16):
                i, o, w, s = indices.to(dev), offsets.to(dev), weight.to(dev, dtype), scale.to(dev, dtype)
                for mode in ("sum", "mean"):
                    close(run(i, o, w, mode), reference(i, o, w, mode), f'mode "{mode}", {dtype} on {dev}')
                what = f'mode "sum" with per_sample_weights, {dtype} on {dev}'
                close(run(i, o, w, "sum", s), reference(i, o, w, "sum", s), what)
    with step("empty bags"):
        empty = tensor([0, 0, 2, 5, 5, 8, 8])  # bags 0, 3 and 6 (the last) are empty
        for mode in ("sum", "mean"):
            got, want = run(indices, empty, weight, mode), reference(indices, empty, weight, mode)
            nan = got.isnan().any(-1) & want.eq(0).all(-1)
            assert not nan.any(), (
                f'mode "{mode}", offsets {empty.tolist()}: bag {int(nan.int().argmax())} is empty and came back nan '
                "(0/0); torch gives a row of zeros for an empty bag"
            )
            close(got, want, f'mode "{mode}", offsets {empty.tolist()} (empty bags)')
    with step("gradients"):
        small = randn(6, 3, dtype=torch.float64)
        i, o = tensor([0, 2, 2, 5, 1]), tensor([0, 0, 3])
        for mode in ("sum", "mean"):
            gradcheck64(lambda w, m=mode: run(i, o, w, m), [small], names=["weight"],
                        reference=lambda w, m=mode: F.embedding_bag(i, w, o, mode=m))
        gradcheck64(lambda w, s: run(i, o, w, "sum", s), [small, scale[:5]], names=["weight", "per_sample_weights"],
                    reference=lambda w, s: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s))
    with step("edges"):
        for what, i, o, w in (
            ("one bag (B = 1)", indices, tensor([0]), weight),
            ("no indices (L = 0), two empty bags", tensor([]), tensor([0, 0]), weight),
            ("one row per bag", indices, torch.arange(8), weight),
            ("a non-contiguous weight", indices, offsets, weight.T.contiguous().T),
            ("rows of 1e300", indices, offsets, weight * 1e300),
        ):
            for mode in ("sum", "mean"):
                close(run(i, o, w, mode), reference(i, o, w, mode), f'{what}, mode "{mode}"')
    with step("vectorised"):
        many = torch.arange(64) % 10
        ops = [count_ops(lambda b=b: run(many, torch.arange(0, 64, 64 // b), weight, "mean")) for b in (2, 32)]
        assert ops[0] == ops[1], (
            f"your code ran {ops[0]} tensor operations for 2 bags and {ops[1]} for 32: one pass over all "
            "the indices, whatever the number of bags"
        )
    where = ", ".join(map(str, devices()))
    return f"C10 passes: sum, mean and per-sample weights match F.embedding_bag on {where}, empty bags too; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C10 passes")
    with pytest.raises(AssertionError, match=r"^C10 · check 1/8 \(forward\): embedding_bag raised NotImplementedError"):
        grade(_stub)
    empty = r"^C10 · check 5/8 \(empty bags\): mode \"mean\", offsets \[0, 0, 2, 5, 5, 8, 8\]: bag 0 "
    with pytest.raises(AssertionError, match=empty + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual test, where no bag is empty
    weight, indices = randn(10, 4), torch.tensor([3, 1, 4, 1, 5])
    offsets = torch.tensor([0, 2])
    want = torch.nn.functional.embedding_bag(indices, weight, offsets, mode="mean")
    assert torch.allclose(_wrong(indices, offsets, weight, "mean"), want)

    def looped(indices, offsets, weight, mode="mean", per_sample_weights=None):
        ends = [*offsets.tolist()[1:], indices.shape[0]]
        bounds = zip(offsets.tolist(), ends, strict=True)
        bags = [_solution(indices[a:b], offsets[:1] * 0, weight, mode) for a, b in bounds]
        return torch.cat(bags) if per_sample_weights is None else _solution(
            indices, offsets, weight, mode, per_sample_weights)

    with pytest.raises(AssertionError, match=r"^C10 · check 8/8 \(vectorised\): your code ran \d+ tensor operations "
                       r"for 2 bags and \d+ for 32"):
        grade(looped)


if __name__ == "__main__":
    _check()
