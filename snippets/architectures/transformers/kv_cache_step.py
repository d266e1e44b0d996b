"""Spot the bug: is_causal=True in a KV-cache decoding step aligns the mask top-left."""

# --8<-- [start:buggy]
import torch
import torch.nn.functional as F


def decode_step(x_new, k_cache, v_cache, w_q, w_k, w_v):
    # x_new: (N, 1, d), the newest token; caches: (N, heads, S, hd)
    n, _, d = x_new.shape
    heads, hd = k_cache.shape[1], k_cache.shape[3]
    q, k, v = (
        (x_new @ w.T).view(n, 1, heads, hd).transpose(1, 2)
        for w in (w_q, w_k, w_v)
    )
    k_cache = torch.cat([k_cache, k], dim=2)
    v_cache = torch.cat([v_cache, v], dim=2)
    out = F.scaled_dot_product_attention(q, k_cache, v_cache, is_causal=True)
    return out.transpose(1, 2).reshape(n, 1, d), k_cache, v_cache


d, heads = 16, 2
w_q, w_k, w_v = torch.randn(3, d, d).unbind(0)
k_cache = v_cache = torch.randn(1, heads, 4, d // heads)  # 4 earlier tokens
out, k_cache, v_cache = decode_step(torch.randn(1, 1, d), k_cache,
                                    v_cache, w_q, w_k, w_v)
print(tuple(out.shape), tuple(k_cache.shape))
# > (1, 1, 16) (1, 2, 5, 8)
# --8<-- [end:buggy]

buggy_step = decode_step

assert F  # used above, in functions the next section's import shadows

# --8<-- [start:fixed]
import torch
import torch.nn.functional as F


def decode_step(x_new, k_cache, v_cache, w_q, w_k, w_v):
    # x_new: (N, 1, d), the newest token; caches: (N, heads, S, hd)
    n, _, d = x_new.shape
    heads, hd = k_cache.shape[1], k_cache.shape[3]
    q, k, v = (
        (x_new @ w.T).view(n, 1, heads, hd).transpose(1, 2)
        for w in (w_q, w_k, w_v)
    )
    k_cache = torch.cat([k_cache, k], dim=2)
    v_cache = torch.cat([v_cache, v], dim=2)
    out = F.scaled_dot_product_attention(q, k_cache, v_cache)  # sees all
    return out.transpose(1, 2).reshape(n, 1, d), k_cache, v_cache


d, heads = 16, 2
w_q, w_k, w_v = torch.randn(3, d, d).unbind(0)
k_cache = v_cache = torch.randn(1, heads, 4, d // heads)  # 4 earlier tokens
out, k_cache, v_cache = decode_step(torch.randn(1, 1, d), k_cache,
                                    v_cache, w_q, w_k, w_v)
print(tuple(out.shape), tuple(k_cache.shape))
# > (1, 1, 16) (1, 2, 5, 8)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.nn.attention.bias import causal_lower_right

    # A full causal forward over 5 tokens; the cached decode of token 4 must match its last row.
    seq = torch.randn(1, 5, d)

    def project(w):
        return (seq @ w.T).view(1, 5, heads, d // heads).transpose(1, 2)

    q, k, v = project(w_q), project(w_k), project(w_v)
    full = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(1, 5, d)
    want = full[:, -1:]
    bad, _, _ = buggy_step(seq[:, -1:], k[:, :, :4], v[:, :, :4], w_q, w_k, w_v)
    good, _, _ = decode_step(seq[:, -1:], k[:, :, :4], v[:, :, :4], w_q, w_k, w_v)
    torch.testing.assert_close(good, want)
    assert not torch.allclose(bad, want, atol=1e-3)
    # The bug attends to key 0 only: the output is v[:, :, 0].
    torch.testing.assert_close(bad, v[:, :, :1].transpose(1, 2).reshape(1, 1, d))
    # Chunked decoding (two new tokens at once) needs the lower-right mask.
    two = F.scaled_dot_product_attention(q[:, :, 3:], k, v, attn_mask=causal_lower_right(2, 5))
    torch.testing.assert_close(two.transpose(1, 2).reshape(1, 2, d), full[:, 3:])


if __name__ == "__main__":
    _check()
