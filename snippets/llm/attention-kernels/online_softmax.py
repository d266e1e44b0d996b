"""FlashAttention's idea in plain PyTorch: tiled attention with an online softmax equals SDPA,
with block-sized tiles."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F


def tiled_attention(q, k, v, block=16, causal=False):
    """Exact attention, one (block x block) score tile at a time.
    Returns the output and the logsumexp of each row (what backward keeps)."""
    B, H, N, D = q.shape
    out = torch.empty_like(q)
    lse = torch.empty(B, H, N)
    for i in range(0, N, block):
        qi = q[:, :, i:i + block] * D ** -0.5
        m = torch.full(qi.shape[:-1], float("-inf"))  # running row max
        l = torch.zeros(qi.shape[:-1])  # running sum of exp
        acc = torch.zeros_like(qi)  # unnormalized output
        stop = min(i + block, N) if causal else N  # skip tiles above diagonal
        for j in range(0, stop, block):
            s = qi @ k[:, :, j:j + block].mT  # one score tile
            if causal:
                rows = torch.arange(i, i + qi.shape[2])[:, None]
                cols = torch.arange(j, j + s.shape[-1])
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))
            scale = torch.exp(m - m_new)  # rescale what we have so far
            p = torch.exp(s - m_new[..., None])
            l = l * scale + p.sum(-1)
            acc = acc * scale[..., None] + p @ v[:, :, j:j + block]
            m = m_new
        out[:, :, i:i + block] = acc / l[..., None]
        lse[:, :, i:i + block] = m + l.log()
    return out, lse


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 100, 16)  # B=2, H=2, N=100, d=16
for causal in (False, True):
    out, lse = tiled_attention(q, k, v, causal=causal)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    print(causal, torch.allclose(out, ref, atol=1e-5))
# > False True
# > True True
# --8<-- [end:demo]

# --8<-- [start:naive]
import torch

x = torch.tensor([1000.0, 1001.0])
print((x.exp() / x.exp().sum()).tolist())  # exp overflows to inf
# > [nan, nan]
print(torch.softmax(x, -1).tolist())  # subtracts the max first
# > [0.2689414322376251, 0.7310585975646973]
# --8<-- [end:naive]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    for causal in (False, True):
        out, lse = tiled_attention(q, k, v, causal=causal)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)
        # The returned logsumexp equals that of the full (scaled, masked) score matrix.
        s = q @ k.mT / 16**0.5
        if causal:
            s = s.masked_fill(torch.ones(100, 100, dtype=torch.bool).triu(1), float("-inf"))
        torch.testing.assert_close(lse, s.logsumexp(-1), atol=1e-5, rtol=1e-5)
    # The largest score tile is block x block per head: 2 x 2 x 16 x 16 = 1,024 elements vs 40,000 for the
    # full matrix (2 x 2 x 100 x 100). Record every matmul while the tiled version runs (a TorchFunctionMode
    # sees each `@` once; a TorchDispatchMode would cost seconds here).
    from torch.overrides import TorchFunctionMode

    sizes, flops = [], 0

    class Record(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            nonlocal flops
            result = func(*args, **(kwargs or {}))
            if getattr(func, "__name__", "") == "matmul":  # `@`: the score and P @ V tiles
                sizes.append(result.numel())
                flops += 2 * result.numel() * args[0].shape[-1]
            return result

    with Record():
        tiled_attention(q, k, v)
    assert len(sizes) == 2 * 7 * 7  # 7 query blocks x 7 key blocks, two matmuls each
    assert max(sizes) == 2 * 2 * 16 * 16 == 1024 < 2 * 2 * 100 * 100
    # Same FLOPs as the full computation (QK^T and PV: 2 x 2·B·H·N²·d): tiling saves memory, not arithmetic.
    assert flops == 2 * (2 * 2 * 2 * 100 * 100 * 16)
    # 2.14.1 registers the pluggable FlashAttention implementations the page names (activated on a GPU).
    assert torch.nn.attention.list_flash_attention_impls() == ["FA3", "FA4"]
    assert torch.isnan(x.exp() / x.exp().sum()).all()
    torch.testing.assert_close(torch.softmax(x, -1), torch.tensor([0.2689414322376251, 0.7310585975646973]))


if __name__ == "__main__":
    _check()
