"""FlexAttention on CPU: a document mask and logit soft-capping as mask_mod/score_mod, block
sparsity, the eager warning."""

# --8<-- [start:demo]
import warnings

import torch
from torch.nn.attention.flex_attention import (
    and_masks,
    create_block_mask,
    flex_attention,
)

N = 16
doc = torch.tensor([0] * 8 + [1] * 8)  # two packed documents of 8 tokens


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def same_doc(b, h, q_idx, kv_idx):
    return doc[q_idx] == doc[kv_idx]


def soft_cap(score, b, h, q_idx, kv_idx):  # Gemma 2 caps scores at 50
    return 50.0 * torch.tanh(score / 50.0)


mask = create_block_mask(and_masks(causal, same_doc), B=None, H=None,
                         Q_LEN=N, KV_LEN=N, device="cpu", BLOCK_SIZE=8)
print(f"{mask.sparsity():.0f}% of the 8x8 blocks are skipped")
# > 50% of the 8x8 blocks are skipped

torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 2, N, 16) * 20  # large scores, so the cap bites
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = flex_attention(q, k, v, score_mod=soft_cap, block_mask=mask)
print(str(caught[0].message)[:45])  # eager: a reference, not the kernel
# > flex_attention called without torch.compile()
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch.nn.functional as F

    # The same computation written densely: soft-capped scores, a block-diagonal causal mask.
    dense = (doc[:, None] == doc[None, :]) & torch.ones(N, N, dtype=torch.bool).tril()
    scores = soft_cap(q @ k.mT / 16**0.5, None, None, None, None)  # the score_mod, called eagerly
    assert scores.abs().max() <= 50.0
    ref = scores.masked_fill(~dense, float("-inf")).softmax(-1) @ v
    torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)
    # Without the cap it would be plain SDPA with the dense mask, and the cap did change the result here.
    assert not torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=dense), atol=1e-3)
    # Half the blocks (the two off-diagonal 8x8 blocks) are empty and skipped.
    assert round(mask.sparsity()) == 50
    # The eager call warned that it materializes the scores.
    assert any("materializes the full scores matrix" in str(w.message) for w in caught)


if __name__ == "__main__":
    _check()
