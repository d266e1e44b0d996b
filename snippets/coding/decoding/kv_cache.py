"""C19 · KV-cache decode step."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


class KVCache:
    """Preallocated keys and values: k, v (B, H, max_len, D); `length` used."""

    def __init__(self, B, H, max_len, D, dtype, device):
        raise NotImplementedError


def prefill(q, k, v, cache):
    """Causal attention over the prompt q, k, v (B, H, T, D); store k, v.

    Raises ValueError if T exceeds the cache. F.scaled_dot_product_attention
    is allowed. Returns (B, H, T, D).
    """
    raise NotImplementedError


def decode_step(q_t, k_t, v_t, cache):
    """Append k_t, v_t (B, H, 1, D) and attend q_t over every cached key.

    Raises ValueError when the cache is full. Returns (B, H, 1, D).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (KVCache, prefill, decode_step)


# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


class KVCache:
    def __init__(self, B, H, max_len, D, dtype, device):
        shape = (B, H, max_len, D)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0


def prefill(q, k, v, cache):
    T = k.shape[2]
    if T > cache.k.shape[2]:
        raise ValueError(f"prompt of {T} tokens > cache {cache.k.shape[2]}")
    cache.k[:, :, :T] = k
    cache.v[:, :, :T] = v
    cache.length = T
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def decode_step(q_t, k_t, v_t, cache):
    L = cache.length
    if L == cache.k.shape[2]:
        raise ValueError(f"the cache is full ({L} tokens)")
    cache.k[:, :, L] = k_t[:, :, 0]
    cache.v[:, :, L] = v_t[:, :, 0]
    cache.length = L + 1
    k, v = cache.k[:, :, : L + 1], cache.v[:, :, : L + 1]
    return F.scaled_dot_product_attention(q_t, k, v, is_causal=True)
# --8<-- [end:wrong]


_wrong = (KVCache, prefill, decode_step)
WRONG_MESSAGE = "your output equals attention over key 0 alone"


# --8<-- [start:solution]
import torch
import torch.nn.functional as F


class KVCache:
    def __init__(self, B, H, max_len, D, dtype, device):
        shape = (B, H, max_len, D)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0


def prefill(q, k, v, cache):
    T = k.shape[2]
    if T > cache.k.shape[2]:
        raise ValueError(f"prompt of {T} tokens > cache {cache.k.shape[2]}")
    cache.k[:, :, :T] = k
    cache.v[:, :, :T] = v
    cache.length = T
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def decode_step(q_t, k_t, v_t, cache):
    L = cache.length
    if L == cache.k.shape[2]:
        raise ValueError(f"the cache is full ({L} tokens)")
    cache.k[:, :, L] = k_t[:, :, 0]
    cache.v[:, :, L] = v_t[:, :, 0]
    cache.length = L + 1
    k, v = cache.k[:, :, : L + 1], cache.v[:, :, : L + 1]
    return F.scaled_dot_product_attention(q_t, k, v)
# --8<-- [end:solution]


_solution = (KVCache, prefill, decode_step)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(KVCache, prefill, decode_step):
    import torch
    import torch.nn.functional as F

    def run(q, k, v, prompt, max_len, call=call):
        B, H, _, D = q.shape
        cache = call(KVCache, B, H, max_len, D, q.dtype, q.device)
        outs = [call(prefill, q[:, :, :prompt], k[:, :, :prompt], v[:, :, :prompt], cache)]
        for t in range(prompt, q.shape[2]):
            outs.append(call(decode_step, q[:, :, t : t + 1], k[:, :, t : t + 1], v[:, :, t : t + 1], cache))
        return cache, outs

    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 9, 8, generator=gen) for _ in range(3))
    run(q, k, v, 5, 12)  # construction and signature, on the CPU
    on_fake_gpu(lambda q, k, v: run(q, k, v, 5, 12, lambda f, *a: f(*a))[1][-1], q, k, v, like="q")
    for dev in devices():
        for dtype, tol in ((torch.float64, 1e-10), (torch.float32, 1e-5)):
            qd, kd, vd = (t.to(dev, dtype) for t in (q, k, v))
            cache, outs = run(qd, kd, vd, 5, 12)
            for name in ("k", "v", "length"):
                if not hasattr(cache, name):
                    raise AssertionError(f"C19 · the cache has no attribute `{name}`")
            want = F.scaled_dot_product_attention(*(t.to(dev, torch.float64) for t in (q, k, v)), is_causal=True)
            close(outs[0], want[:, :, :5].to(dtype), f"prefill of 5 tokens, {dtype} on {dev}", tol, tol)
            for step, out in enumerate(outs[1:], start=1):
                t = 4 + step
                first = F.scaled_dot_product_attention(qd[:, :, t : t + 1], kd[:, :, :1], vd[:, :, :1])
                if out.shape == first.shape and torch.allclose(out, first, atol=tol, rtol=tol):
                    raise AssertionError(
                        f"C19 · at decode step {step} your output equals attention over key 0 alone. A (1, T) causal "
                        "mask aligned top-left (tril, or SDPA's is_causal=True) hides every key but the first; the "
                        "newest query may see all cached keys: use no mask")
                close(out, want[:, :, t : t + 1].to(dtype), f"decode step {step} (token {t}), {dtype} on {dev}",
                      tol, tol)
            if cache.length != 9:
                raise AssertionError(f"C19 · after 5 + 4 tokens cache.length is {cache.length}, expected 9")
            close(cache.k[:, :, :9], kd, "cache.k[:, :, :9] after 9 tokens", 0, 0)
            close(cache.v[:, :, :9], vd, "cache.v[:, :, :9] after 9 tokens", 0, 0)
        # preallocated: the buffers never move; a full cache refuses
        cache = call(KVCache, 2, 3, 6, 8, torch.float32, dev)
        ptr = cache.k.data_ptr()
        qd, kd, vd = (t.to(dev, torch.float32) for t in (q, k, v))
        call(prefill, qd[:, :, :5], kd[:, :, :5], vd[:, :, :5], cache)
        call(decode_step, qd[:, :, 5:6], kd[:, :, 5:6], vd[:, :, 5:6], cache)
        if cache.k.data_ptr() != ptr:
            raise AssertionError("C19 · cache.k moved to new memory: preallocate max_len and write in place (no cat)")
        try:
            decode_step(qd[:, :, 6:7], kd[:, :, 6:7], vd[:, :, 6:7], cache)
        except ValueError:
            pass
        else:
            raise AssertionError("C19 · a decode step into a full cache (6 of 6) must raise ValueError")
        try:
            prefill(qd, kd, vd, KVCache(2, 3, 4, 8, torch.float32, dev))
        except ValueError:
            pass
        else:
            raise AssertionError("C19 · a 9-token prompt into a 4-slot cache must raise ValueError")
    return "C19 passes: prefill + decode equals causal attention over 9 tokens, in place, full cache refused"


def _check():
    import contextlib
    import re

    import pytest

    assert grade(*_solution).startswith("C19 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    cache, q = _wrong[0](1, 1, 2, 4, torch.float32, "cpu"), torch.ones(1, 1, 3, 4)
    with pytest.raises(ValueError, match="prompt of 3 tokens > cache 2"):  # the wrong attempt's only bug is the mask
        _wrong[1](q, q, q, cache)
    _wrong[1](q[:, :, :2], q[:, :, :2], q[:, :, :2], cache)
    with pytest.raises(ValueError, match=r"the cache is full \(2 tokens\)"):
        _wrong[2](q[:, :, :1], q[:, :, :1], q[:, :, :1], cache)
    for stub in _stub[1:]:
        with pytest.raises(NotImplementedError):
            stub(q, q, q, cache)

    # mutants of the reference, one per remaining failure, each with its exact message
    Cache, prefill, decode_step = _solution

    class Hidden:  # keeps a reference cache private: no k, v, length of its own
        def __init__(self, *args):
            self.inner = Cache(*args)

    class Stale(Hidden):  # shows k and v, but length stays 0
        def __init__(self, *args):
            super().__init__(*args)
            self.k, self.v, self.length = self.inner.k, self.inner.v, 0

    def inner_prefill(q, k, v, cache):
        return prefill(q, k, v, cache.inner)

    def inner_decode(q, k, v, cache):
        return decode_step(q, k, v, cache.inner)

    def moving(q, k, v, cache):  # appends by building new buffers
        out = decode_step(q, k, v, cache)
        cache.k, cache.v = cache.k.clone(), cache.v.clone()
        return out

    def silent(fn):  # swallows the ValueError of a full cache
        def attempt(*args):
            with contextlib.suppress(ValueError):
                return fn(*args)

        return attempt

    for attempt, message in [
        ((Hidden, inner_prefill, inner_decode), r"^C19 · the cache has no attribute `k`$"),
        ((Stale, inner_prefill, inner_decode), r"^C19 · after 5 \+ 4 tokens cache.length is 0, expected 9$"),
        ((Cache, prefill, moving), r"^C19 · cache.k moved to new memory"),
        ((Cache, prefill, silent(decode_step)), r"^C19 · a decode step into a full cache \(6 of 6\) must raise"),
        ((Cache, silent(prefill), decode_step), r"^C19 · a 9-token prompt into a 4-slot cache must raise"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(*attempt)


if __name__ == "__main__":
    _check()
