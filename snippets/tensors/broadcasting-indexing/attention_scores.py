"""Attention scores with einsum and with matmul agree and match SDPA; fully masked rows."""

# --8<-- [start:demo]
import math

import torch

q = torch.randn(2, 3, 4, 8)  # (batch, heads, query positions, head dim)
k = torch.randn(2, 3, 5, 8)  # (batch, heads, key positions, head dim)
scale = 1 / math.sqrt(q.shape[-1])
# d is summed: it is missing on the right of the arrow
scores_einsum = torch.einsum("bhqd,bhkd->bhqk", q, k) * scale
# batched over the leading (b, h) dims
scores_matmul = (q @ k.transpose(-2, -1)) * scale
print(scores_einsum.shape)
# > torch.Size([2, 3, 4, 5])
print(torch.allclose(scores_einsum, scores_matmul))
# > True
# --8<-- [end:demo]

demo_q, demo_k = q, k  # hidden: the next section reuses the names

# --8<-- [start:attention]
import math

import torch
import torch.nn.functional as F

q, k, v = (torch.randn(2, 3, 4, 8) for _ in range(3))
# .mT: transpose of the last two dims
scores = q @ k.mT / math.sqrt(q.shape[-1])
# True where the key position is after the query position
future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)
# rows sum to 1
weights = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
out = weights @ v
fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(out.shape, torch.allclose(out, fused, atol=1e-6))
# > torch.Size([2, 3, 4, 8]) True
# --8<-- [end:attention]

causal_out, causal_weights = out, weights  # kept for the checks

# --8<-- [start:masking]
import torch
import torch.nn.functional as F

q, k, v = (torch.randn(1, 1, 3, 4) for _ in range(3))
keep = torch.tensor([[True, True, False],
                     [True, False, False],
                     [False, False, False]])  # query 2 may see no key
sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
scores = q @ k.mT / 2  # 2 = sqrt(head dim)
by_hand = scores.masked_fill(~keep, float("-inf")).softmax(-1) @ v
big_negative = scores.masked_fill(~keep, -1e9).softmax(-1)
print(sdpa[0, 0, 2])
# > tensor([0., 0., 0., 0.])
print(by_hand[0, 0, 2])
# > tensor([nan, nan, nan, nan])
print(big_negative[0, 0, 2])  # uniform over keys it must not see
# > tensor([0.3333, 0.3333, 0.3333])
# --8<-- [end:masking]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # einsum and matmul compute the same scores (up to float rounding), and so does the explicit loop.
    torch.testing.assert_close(scores_einsum, scores_matmul)
    torch.testing.assert_close(demo_q @ demo_k.mT * scale, scores_matmul)
    b, h, i, j = 1, 2, 3, 4
    torch.testing.assert_close(
        scores_matmul[b, h, i, j], (demo_q[b, h, i] * demo_k[b, h, j]).sum() * scale
    )
    # Ellipsis spells "any batch dims".
    torch.testing.assert_close(torch.einsum("...qd,...kd->...qk", demo_q, demo_k) * scale, scores_matmul)
    # Forgetting the transpose fails loudly: matmul contracts q's last dim with k's second-to-last.
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of batch2 tensor"):
        demo_q @ demo_k
    # The 1/sqrt(d) scale keeps the scores' spread near 1 for unit-variance q and k.
    wide_q, wide_k = torch.randn(64, 256), torch.randn(64, 256)
    assert 0.8 < (wide_q @ wide_k.mT / math.sqrt(256)).std() < 1.2
    assert (wide_q @ wide_k.mT).std() > 10

    # Causal attention by hand equals SDPA with is_causal=True; unmasked equals plain SDPA.
    torch.testing.assert_close(causal_out, fused)
    assert torch.equal(causal_weights[..., 0, 1:], torch.zeros(2, 3, 3))  # query 0 sees key 0 only
    torch.testing.assert_close(causal_weights.sum(-1), torch.ones(2, 3, 4))
    q2, k2, v2 = (torch.randn(2, 3, 4, 8) for _ in range(3))
    torch.testing.assert_close(
        (q2 @ k2.mT / math.sqrt(8)).softmax(-1) @ v2, F.scaled_dot_product_attention(q2, k2, v2)
    )

    # A fully masked query row: SDPA returns zeros (float -inf masks too), and its gradient is 0,
    # not NaN; softmax over all -inf by hand is NaN; a large negative fill (-1e9 or finfo.min)
    # spreads the row uniformly over the padding, so the output is the mean of v. The old advice,
    # "use a large negative finite value", gives attention to keys the row must not see.
    assert torch.equal(sdpa[0, 0, 2], torch.zeros(4))
    assert not sdpa[0, 0, :2].eq(0).all()  # the other rows are ordinary attention
    torch.testing.assert_close(sdpa[0, 0, :2], by_hand[0, 0, :2])
    float_mask = torch.zeros(3, 3).masked_fill(~keep, float("-inf"))
    assert torch.equal(F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)[0, 0, 2], torch.zeros(4))
    leaf_q = q.clone().requires_grad_()
    F.scaled_dot_product_attention(leaf_q, k, v, attn_mask=keep).sum().backward()
    assert torch.equal(leaf_q.grad[0, 0, 2], torch.zeros(4)) and not leaf_q.grad.isnan().any()
    assert by_hand[0, 0, 2].isnan().all() and not by_hand[0, 0, :2].isnan().any()
    for fill in (-1e9, torch.finfo(scores.dtype).min):
        uniform = scores.masked_fill(~keep, fill).softmax(-1)
        torch.testing.assert_close(uniform[0, 0, 2], torch.full((3,), 1 / 3))
        torch.testing.assert_close((uniform @ v)[0, 0, 2], v[0, 0].mean(0))
    assert big_negative[0, 0, 2, 2] > 0.3  # the padding key gets a third of the weight

    # nn.MultiheadAttention: with the default need_weights=True it builds the weights by hand and a
    # fully masked row is NaN; with need_weights=False it calls SDPA (or, in eval without grad, the
    # fused fast path) and the row is zeros, so the output is out_proj's bias.
    mha = torch.nn.MultiheadAttention(4, 1, batch_first=True)
    with torch.no_grad():
        mha.out_proj.bias.fill_(0.5)
    x = torch.randn(2, 3, 4)
    pad = torch.tensor([[False, False, False], [True, True, True]])  # True = ignore this key
    mha.train()
    with_weights, attn = mha(x, x, x, key_padding_mask=pad)
    assert with_weights[1].isnan().all() and attn[1].isnan().all()
    assert not with_weights[0].isnan().any()
    without_weights, none = mha(x, x, x, key_padding_mask=pad, need_weights=False)
    assert none is None and torch.equal(without_weights[1], torch.full((3, 4), 0.5))
    mha.eval()
    assert torch.backends.mha.get_fastpath_enabled()
    with torch.inference_mode():
        fast, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
        slow, _ = mha(x, x, x, key_padding_mask=pad)
    assert torch.equal(fast[1], torch.full((3, 4), 0.5)) and slow[1].isnan().all()

    # Drift alarm: enable_gqa=True (torch 2.5+) lets k and v carry fewer heads than q; it equals
    # repeating each k/v head over its group with repeat_interleave.
    gq, gk, gv = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 8)
    grouped = F.scaled_dot_product_attention(gq, gk, gv, enable_gqa=True)
    repeated = F.scaled_dot_product_attention(
        gq, gk.repeat_interleave(2, dim=1), gv.repeat_interleave(2, dim=1)
    )
    torch.testing.assert_close(grouped, repeated)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(gq, gk, gv)  # without the flag the head counts must match


if __name__ == "__main__":
    _check()
