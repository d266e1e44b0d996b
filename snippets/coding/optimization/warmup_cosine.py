"""C26 · Linear warmup + cosine decay."""

# --8<-- [start:prompt]
import math


def warmup_cosine(step, warmup, total, min_ratio=0.0):
    """The LR multiplier for torch.optim.lr_scheduler.LambdaLR.

    `step` counts the optimizer steps already taken (LambdaLR calls this
    with 0 before the first update). Linear warmup (step + 1) / warmup for
    step < warmup, then a cosine from 1 down to min_ratio at step == total,
    then held at min_ratio.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = warmup_cosine


# --8<-- [start:wrong]
import math


def warmup_cosine(step, warmup, total, min_ratio=0.0):
    if step < warmup:
        return step / warmup
    t = min((step - warmup) / max(1, total - warmup), 1.0)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))
# --8<-- [end:wrong]


_wrong = warmup_cosine
WRONG_MESSAGE = 'the first optimizer step ran with lr 0.0'


# --8<-- [start:solution]
import math


def warmup_cosine(step, warmup, total, min_ratio=0.0):
    if step < warmup:
        return (step + 1) / warmup
    t = min((step - warmup) / max(1, total - warmup), 1.0)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))
# --8<-- [end:solution]


_solution = warmup_cosine


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, = (_KIT[n] for n in ("call",))


def grade(warmup_cosine):
    import math
    import warnings

    import torch

    def fail(what, msg):
        raise AssertionError(f"C26 · {what}: {msg}")

    # LambdaLR + SGD: the lr each optimizer.step() really used
    w = torch.nn.Parameter(torch.zeros(()))
    opt = torch.optim.SGD([w], lr=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: call(warmup_cosine, s, 4, 20, 0.1))
        used = []
        for _ in range(26):
            used.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
    if used[0] == 0:
        fail("first step", "the first optimizer step ran with lr 0.0: LambdaLR evaluates your function at 0 before "
             "any update, so start at (step + 1)/warmup")
    if abs(used[0] - 0.5 / 4) > 1e-12:
        fail("first step", f"the first step used lr {used[0]:.4g}; warmup=4 and base lr 0.5 give 0.125")
    if abs(used[3] - 0.5) > 1e-12:
        fail("peak", f"the last warmup step (step 3) used lr {used[3]:.4g}; it must reach the base lr 0.5")
    if any(b > a + 1e-12 for a, b in zip(used[3:], used[4:], strict=False)):
        fail("decay", f"the lr rose again after warmup: {[round(x, 4) for x in used]}")
    if any(abs(x - 0.05) > 1e-12 for x in used[20:]):
        fail("floor", f"from step 20 (= total) the lr must stay at min_ratio * base = 0.05; got {used[20:]}")
    mid = warmup_cosine(12, 4, 20, 0.1)
    if abs(mid - 0.55) > 1e-12:
        fail("cosine", f"halfway through the decay (step 12 of 4..20) the multiplier must be (1 + 0.1)/2 = 0.55; "
             f"got {mid:.4g}")
    for warmup, total in ((0, 10), (10, 10), (3, 7)):
        for step in range(total + 5):
            if step < warmup:
                want = (step + 1) / warmup
            else:
                t = min((step - warmup) / max(1, total - warmup), 1.0)
                want = 0.5 * (1 + math.cos(math.pi * t))
            got = call(warmup_cosine, step, warmup, total)
            if not isinstance(got, (int, float)) or abs(got - want) > 1e-12:
                fail(f"warmup={warmup}, total={total}", f"step {step} gave {got!r}, expected {want:.6f}")
    return "C26 passes: the first step uses base/warmup, the peak is the base lr, the floor is reached and held"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C26 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # mutants, one per remaining failure, each with its exact message
    import math
    from fractions import Fraction

    def cosine(step, warmup, total, min_ratio, clamp=True, floor=True):
        t = (step - warmup) / max(1, total - warmup)
        t = min(t, 1.0) if clamp else t
        low = min_ratio if floor else 0.0
        return low + (1 - low) * 0.5 * (1 + math.cos(math.pi * t))

    def one_late(step, warmup, total, min_ratio=0.0):  # warmup counts to warmup + 1
        return (step + 1) / (warmup + 1) if step < warmup else cosine(step, warmup, total, min_ratio)

    def exponential(step, warmup, total, min_ratio=0.0):  # exponential warmup from 1/warmup
        return warmup ** (step / warmup - 1) if step < warmup else cosine(step, warmup, total, min_ratio)

    def unclamped(step, warmup, total, min_ratio=0.0):  # t not clamped at 1: the cosine comes back up
        return (step + 1) / warmup if step < warmup else cosine(step, warmup, total, min_ratio, clamp=False)

    def no_floor(step, warmup, total, min_ratio=0.0):  # decays to 0, not to min_ratio
        return (step + 1) / warmup if step < warmup else cosine(step, warmup, total, min_ratio, floor=False)

    def quarter(step, warmup, total, min_ratio=0.0):  # a quarter cosine: cos(pi t / 2)
        if step < warmup:
            return (step + 1) / warmup
        t = min((step - warmup) / max(1, total - warmup), 1.0)
        return min_ratio + (1 - min_ratio) * math.cos(math.pi * t / 2)

    for attempt, message in [
        (one_late, r"^C26 · first step: the first step used lr 0.1; warmup=4 and base lr 0.5 give 0.125$"),
        (exponential, r"^C26 · peak: the last warmup step \(step 3\) used lr 0.3536; it must reach the base lr"),
        (unclamped, r"^C26 · decay: the lr rose again after warmup: \[0.125, 0.25, 0.375, 0.5, 0.5, 0.4957"),
        (no_floor, r"^C26 · floor: from step 20 \(= total\) the lr must stay at min_ratio \* base = 0.05; got \[0.0"),
        (quarter, r"^C26 · cosine: halfway through the decay .* must be \(1 \+ 0.1\)/2 = 0.55; got 0.7364$"),
        (lambda *args: Fraction(_solution(*args)), r"^C26 · warmup=0, total=10: step 0 gave Fraction\(1, 1\), "),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
