"""C20 · Greedy, temperature and top-k sampling."""

# --8<-- [start:prompt]
import torch


def filter_top_k(logits, k):
    """Keep each row's logits >= its k-th largest (ties kept); the rest -inf.

    logits: (B, V) float, any device. k >= V keeps every logit.
    Returns a new tensor with the shape, dtype and device of `logits`.
    """
    raise NotImplementedError


def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """Draw one token id per row of `logits` (B, V); returns (B,) int64.

    temperature == 0 is greedy (argmax); otherwise sample from
    softmax(logits / temperature) over the top_k filter (None: no filter).
    `generator` lives on the logits' device; pass it to the sampler.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (filter_top_k, sample_next)


# --8<-- [start:wrong]
import torch


def filter_top_k(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    kth = logits.topk(k, dim=-1).values[:, -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if top_k == 1:
        return logits.argmax(dim=-1)
    z = logits.float() / temperature
    if top_k is not None:
        z = filter_top_k(z, top_k)
    probs = torch.softmax(z, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
# --8<-- [end:wrong]


_wrong = (filter_top_k, sample_next)
WRONG_MESSAGE = "temperature 0 gave NaN probabilities"


# --8<-- [start:solution]
import torch


def filter_top_k(logits, k):
    if k >= logits.shape[-1]:
        return logits.clone()
    kth = logits.topk(k, dim=-1).values[:, -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    z = logits.float() / temperature
    if top_k is not None:
        z = filter_top_k(z, top_k)
    probs = torch.softmax(z, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
# --8<-- [end:solution]


_solution = (filter_top_k, sample_next)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(filter_top_k, sample_next):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C20 · {what}: {msg}")

    for dev in devices():
        logits = torch.tensor([[2.0, 1.0, 1.0, 0.5, -1.0], [0.0, 3.0, 0.0, -2.0, 1.0]], device=dev)
        kept = call(filter_top_k, logits, 2)
        want = torch.full_like(logits, float("-inf"))
        want[0, :3] = logits[0, :3]  # the tie at the 2nd value keeps both
        want[1, 1], want[1, 4] = 3.0, 1.0
        close(kept, want, "filter_top_k(logits, 2), ties at the k-th value kept", 0, 0)
        close(call(filter_top_k, logits, 9), logits, "filter_top_k with k >= V keeps every logit", 0, 0)
        for t in (1.0, 0.7):
            g = torch.Generator(device=dev).manual_seed(0)
            out = call(sample_next, logits, t, None, g)
            close(out, out.long(), f"sample_next at temperature {t}: dtype", 0, 0)
            if out.shape != (2,):
                fail("shape", f"sample_next returned {tuple(out.shape)}, expected (2,)")
        try:
            greedy = call(sample_next, logits, 0.0)
        except AssertionError as error:
            if "nan" in str(error).lower():
                fail("greedy", "temperature 0 gave NaN probabilities (logits/0 = ±inf): treat T = 0 as greedy argmax")
            raise
        close(greedy, logits.argmax(-1), "sample_next at temperature 0 (greedy argmax)", 0, 0)
        # statistics: 40,000 draws from a batched row, frequencies within 10 sigma
        n = 40_000
        row = torch.tensor([1.5, 0.0, 1.0, -1.0, 0.5, float("-inf")], device=dev)

        def softmax_top_k(row, t, k):
            z = row.double() / t
            if k is not None:
                z = torch.where(z >= z.topk(k).values[-1], z, float("-inf"))
            return torch.softmax(z, -1).cpu()

        for t, k in ((1.0, None), (0.5, 3), (2.0, 4)):
            p = softmax_top_k(row, t, k)
            g = torch.Generator(device=dev).manual_seed(1234)
            draws = call(sample_next, row.expand(n, -1), t, k, g).cpu()
            freq = torch.bincount(draws, minlength=6).double() / n
            if k is not None and (freq[p == 0] > 0).any():
                fail("top-k", f"temperature {t}, top_k={k}: sampled a token outside the top {k}")
            sigma = (p * (1 - p) / n).sqrt().clamp(min=1e-12)
            worst = ((freq - p).abs() / sigma).max()
            if worst > 10:
                if t != 1.0 and ((freq - softmax_top_k(row, 1.0, k)).abs() < 0.01).all():
                    fail("temperature", f"at temperature {t} the frequencies are those of temperature 1: your "
                         "temperature has no effect (multinomial renormalises its weights, so divide the logits)")
                got_f, want_f = ([round(x, 3) for x in v.tolist()] for v in (freq, p))
                fail("distribution", f"temperature {t}, top_k={k}: frequencies {got_f}, expected {want_f}")
        bf = call(sample_next, logits.bfloat16(), 1.0, 2, torch.Generator(device=dev).manual_seed(0))
        if bf.dtype != torch.int64:
            fail("dtype", f"bfloat16 logits gave {bf.dtype} ids, expected torch.int64")
    x = torch.randn(3, 7)
    call(filter_top_k, x, 2), call(sample_next, x, 1.0, 2)  # construction and signature, on the CPU
    on_fake_gpu(lambda x: (filter_top_k(x, 2), sample_next(x, 1.0, 2)), x, like="logits")
    return "C20 passes: top-k filter with ties, greedy at T=0, and sampled frequencies within 10σ of softmax(z/T)"


def _check():
    import re

    import pytest

    assert grade(*_solution).startswith("C20 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    logits = torch.tensor([[0.0, 2.0, 1.0, -1.0]])
    with pytest.raises(NotImplementedError):
        _stub[1](logits)
    assert _wrong[1](logits, 1.0, 1).tolist() == [1]  # the wrong attempt's top-k paths work; T = 0 is its bug
    assert _wrong[1](logits.expand(50, -1), 1.0, 2).lt(3).all()

    # mutants of the reference, one per remaining failure, each with its exact message
    top_k, sample = _solution

    def mutant(change):
        return top_k, lambda logits, t=1.0, k=None, g=None: change(logits, t, k, g)

    def refuse_zero(logits, t, k, g):
        if t == 0:
            raise ValueError("temperature must be positive")
        return sample(logits, t, k, g)

    def bf16_int32(logits, t, k, g):
        out = sample(logits, t, k, g)
        return out.int() if logits.dtype == torch.bfloat16 else out

    for change, message in [
        (lambda logits, t, k, g: sample(logits, t, k, g)[:, None], r"^C20 · shape: sample_next returned \(2, 1\)"),
        (refuse_zero, r"<lambda> raised ValueError \(line \d+\): temperature must be positive$"),
        (lambda logits, t, k, g: sample(logits, t, None, g), r"^C20 · top-k: temperature 0.5, top_k=3: sampled a "),
        (lambda logits, t, k, g: sample(logits, t and 1.0, k, g), r"^C20 · temperature: at temperature 0.5 the"),
        (lambda logits, t, k, g: sample(logits, t and 1 / t, k, g), r"^C20 · distribution: temperature 0.5, top_k"),
        (bf16_int32, r"^C20 · dtype: bfloat16 logits gave torch.int32 ids, expected torch.int64$"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(*mutant(change))


if __name__ == "__main__":
    _check()
