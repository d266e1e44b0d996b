"""RoPE rotates q and k (two layouts, a fixed permutation apart); ALiBi adds a per-head distance bias."""

# --8<-- [start:demo]
import torch


def rope_interleaved(x, base=10000.0):  # x: (T, d), pairs (0,1), (2,3), ...
    T, d = x.shape
    theta = base ** (-torch.arange(0, d, 2) / d)
    angle = torch.arange(T)[:, None] * theta  # (T, d/2)
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x[:, 0::2], x[:, 1::2]
    out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
    return out.flatten(1)


def rope_half(x, base=10000.0):  # pairs (i, i + d/2): GPT-NeoX, HF Llama
    T, d = x.shape
    theta = base ** (-torch.arange(0, d, 2) / d)
    angle = torch.arange(T)[:, None] * theta
    cos, sin = angle.cos().repeat(1, 2), angle.sin().repeat(1, 2)
    x1, x2 = x[:, : d // 2], x[:, d // 2 :]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


q_vec, k_vec = torch.randn(16), torch.randn(16)
rq = rope_interleaved(q_vec.expand(32, 16))  # the same q at positions 0..31
rk = rope_interleaved(k_vec.expand(32, 16))
s = rq @ rk.T  # s[m, n]: query at m, key at n
print(max(s.diagonal(m_n).std().item() for m_n in range(-30, 31)) < 1e-4)
# > True
q = torch.randn(32, 16)
perm = torch.cat([torch.arange(0, 16, 2), torch.arange(1, 16, 2)])
print(torch.allclose(rope_interleaved(q)[:, perm], rope_half(q[:, perm]),
                     atol=1e-5))  # same maths, permuted dimensions
# > True
# --8<-- [end:demo]

rope_q = q

# --8<-- [start:alibi]
import torch
import torch.nn.functional as F

heads, T = 8, 6
slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1) / heads)
print(slopes[[0, 1, -1]].tolist())
# > [0.5, 0.25, 0.00390625]
distance = torch.arange(T)[:, None] - torch.arange(T)[None, :]  # i - j
bias = -slopes[:, None, None] * distance  # (heads, T, T)
bias = bias.masked_fill(distance < 0, float("-inf"))  # causal
q = k = v = torch.randn(1, heads, T, 16)
out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)  # a float mask
print(tuple(out.shape))
# > (1, 8, 6, 16)
# --8<-- [end:alibi]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math

    # Norms preserved; identity at position 0.
    torch.testing.assert_close(rope_interleaved(rope_q).norm(dim=-1), rope_q.norm(dim=-1))
    torch.testing.assert_close(rope_interleaved(rope_q)[0], rope_q[0])
    # Without RoPE the same q and k give one score everywhere; RoPE makes it vary with the offset.
    assert s.diagonal(0).std() < 1e-4 and s[0].std() > 1e-3
    # Converting a checkpoint: permute W_q and W_k rows, and rotate-half gives the same scores.
    w_q, w_k, h = torch.randn(16, 16), torch.randn(16, 16), torch.randn(32, 16)
    ref = rope_interleaved(h @ w_q.T) @ rope_interleaved(h @ w_k.T).T
    conv = rope_half(h @ w_q[perm].T) @ rope_half(h @ w_k[perm].T).T
    torch.testing.assert_close(conv, ref, atol=1e-3, rtol=1e-4)
    same_weights = rope_half(h @ w_q.T) @ rope_half(h @ w_k.T).T
    assert not torch.allclose(same_weights, ref, atol=1e-2)  # no error, just wrong
    # Long wavelengths: how many frequency pairs never complete a period in the context.
    def long_pairs(base, hd, ctx):
        wavelength = 2 * math.pi * base ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        return int((wavelength > ctx).sum()), wavelength.max().item()

    n, longest = long_pairs(10000.0, 128, 4096)
    assert n == 18 and round(longest) == 54410
    n, longest = long_pairs(500000.0, 128, 8192)
    assert n == 29 and round(longest) == 2559196
    # ALiBi via SDPA's float mask equals the hand-written softmax.
    scale = 1 / math.sqrt(16)
    by_hand = torch.softmax(q @ k.mT * scale + bias, dim=-1) @ v
    torch.testing.assert_close(out, by_hand)
    assert slopes.tolist() == [2.0**-i for i in range(1, 9)]
    # Core PyTorch has no rotary module.
    assert not [name for name in dir(torch.nn) if "rotary" in name.lower() or "rope" in name.lower()]


if __name__ == "__main__":
    _check()
