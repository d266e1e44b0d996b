"""What attention saves for backward: the N x N probabilities by hand, O(N) with SDPA's fused kernel."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F


def saved_bytes(fn, *inputs):
    saved = {}

    def pack(t):  # every tensor autograd keeps for backward, once
        saved[t.untyped_storage().data_ptr()] = t.nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*inputs)
    return out, sum(saved.values()), max(saved.values())


def by_hand(q, k, v):
    n = q.shape[-2]
    scores = q @ k.mT / q.shape[-1] ** 0.5
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    scores = scores.masked_fill(~causal, float("-inf"))
    return scores.softmax(-1) @ v


def fused(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


torch.manual_seed(0)
q, k, v = (torch.randn(1, 2, 256, 16, requires_grad=True) for _ in "qkv")
for fn in (by_hand, fused):
    out, total, largest = saved_bytes(fn, q, k, v)
    print(f"{fn.__name__}: {total:,} B saved, largest {largest:,} B")
# > by_hand: 688,128 B saved, largest 524,288 B
# > fused: 133,120 B saved, largest 32,768 B
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    out_hand, total_hand, largest_hand = saved_bytes(by_hand, q, k, v)
    out_fused, total_fused, largest_fused = saved_bytes(fused, q, k, v)
    # The hand-written version keeps N x N tensors per head (2 x 256 x 256 fp32 = 524,288 B).
    assert largest_hand == 2 * 256 * 256 * 4
    # The fused kernel keeps q, k, v, out (32,768 B each) and one fp32 logsumexp per row (2,048 B).
    assert total_fused == 4 * 2 * 256 * 16 * 4 + 2 * 256 * 4 == 133_120
    assert type(out_fused.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    # Same values and same gradients: fused attention is exact, not an approximation.
    torch.testing.assert_close(out_hand, out_fused, atol=1e-5, rtol=1e-5)
    g_hand = torch.autograd.grad(out_hand.sum(), (q, k, v))
    g_fused = torch.autograd.grad(out_fused.sum(), (q, k, v))
    for a, b in zip(g_hand, g_fused, strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
    # At 32k tokens, 32 heads, bf16: the probability matrix alone is 64 GiB per layer per sequence.
    assert 32 * 32768 * 32768 * 2 == 64 * 2**30


if __name__ == "__main__":
    _check()
