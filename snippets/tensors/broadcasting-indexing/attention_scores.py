"""Batched attention scores written with einsum and with matmul agree, and match scaled_dot_product_attention."""

# --8<-- [start:demo]
import math

import torch

q = torch.randn(2, 3, 4, 8)  # (batch, heads, query positions, head dim)
k = torch.randn(2, 3, 5, 8)  # (batch, heads, key positions, head dim)
scale = 1 / math.sqrt(q.shape[-1])
scores_einsum = torch.einsum("bhqd,bhkd->bhqk", q, k) * scale  # d is summed: it is missing on the right
scores_matmul = (q @ k.transpose(-2, -1)) * scale  # batched over the leading (b, h) dims
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
scores = q @ k.mT / math.sqrt(q.shape[-1])  # .mT: transpose of the last two dims
future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # True where key position > query position
weights = scores.masked_fill(future, float("-inf")).softmax(dim=-1)  # each row sums to 1
out = weights @ v
print(out.shape, torch.allclose(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6))
# > torch.Size([2, 3, 4, 8]) True
# --8<-- [end:attention]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # einsum and matmul compute the same scores (up to float rounding), and so does the explicit loop.
    torch.testing.assert_close(scores_einsum, scores_matmul)
    torch.testing.assert_close(demo_q @ demo_k.mT * scale, scores_matmul)
    b, h, i, j = 1, 2, 3, 4
    torch.testing.assert_close(scores_matmul[b, h, i, j], (demo_q[b, h, i] * demo_k[b, h, j]).sum() * scale)
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
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    torch.testing.assert_close(scores.softmax(-1) @ v, F.scaled_dot_product_attention(q, k, v))
    assert torch.equal(weights[..., 0, 1:], torch.zeros(2, 3, 3))  # the first query sees only key 0
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 4))


if __name__ == "__main__":
    _check()
