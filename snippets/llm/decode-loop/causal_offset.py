"""Attending new tokens to a cache: is_causal=True is top-left aligned; the right mask is bottom-right."""

# --8<-- [start:masks]
import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

L, S = 3, 5  # 3 new queries, 5 keys: 2 cached + 3 new
bottom_right = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)
print(bottom_right.int())
# > tensor([[1, 1, 1, 0, 0],
# >         [1, 1, 1, 1, 0],
# >         [1, 1, 1, 1, 1]], dtype=torch.int32)

torch.manual_seed(0)
q = torch.randn(1, 2, L, 8)
k, v = torch.randn(2, 1, 2, S, 8)
right = F.scaled_dot_product_attention(q, k, v, attn_mask=bottom_right)
lib = F.scaled_dot_product_attention(
    q, k, v, attn_mask=causal_lower_right(L, S))
top_left = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(lib, right), torch.allclose(top_left, right))
# > True False
# --8<-- [end:masks]

# --8<-- [start:buggy]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
k_cache = torch.randn(1, 2, 6, 8)  # 5 past tokens + this step's
v_cache = torch.randn(1, 2, 6, 8)
k_new, v_new = torch.randn(2, 1, 2, 1, 8)
k_cache[:, :, 5:] = k_new  # write this step's key and value
v_cache[:, :, 5:] = v_new
q_new = torch.randn(1, 2, 1, 8)  # one query: the newest token

out = F.scaled_dot_product_attention(q_new, k_cache, v_cache, is_causal=True)
# --8<-- [end:buggy]

# --8<-- [start:fixed]
# the cache holds only the past and this token: no mask is needed
out = F.scaled_dot_product_attention(q_new, k_cache, v_cache)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    torch.testing.assert_close(lib, right)
    # is_causal=True on (3, 5) is the top-left triangle tril(0).
    top = torch.ones(L, S, dtype=torch.bool).tril()
    torch.testing.assert_close(top_left, F.scaled_dot_product_attention(q, k, v, attn_mask=top))
    # The bug: a single decode query with is_causal=True sees only key 0.
    bug = F.scaled_dot_product_attention(q_new, k_cache, v_cache, is_causal=True)
    assert torch.equal(bug, v_cache[..., :1, :])
    # The fix equals a full recompute: the last row of causal attention over all 6 tokens.
    q_all = torch.randn(1, 2, 6, 8)
    q_all[:, :, 5:] = q_new
    full = F.scaled_dot_product_attention(q_all, k_cache, v_cache, is_causal=True)[:, :, 5:]
    torch.testing.assert_close(out, full)
    assert not torch.allclose(bug, full)
    # Chunked prefill of 6 tokens in chunks of 3 with causal_lower_right equals one-shot causal prefill.
    chunks = []
    for start in (0, 3):
        kk, vv = k_cache[:, :, : start + 3], v_cache[:, :, : start + 3]
        mask = causal_lower_right(3, start + 3)
        chunks.append(F.scaled_dot_product_attention(q_all[:, :, start : start + 3], kk, vv, attn_mask=mask))
    one_shot = F.scaled_dot_product_attention(q_all, k_cache, v_cache, is_causal=True)
    torch.testing.assert_close(torch.cat(chunks, dim=2), one_shot, atol=1e-6, rtol=1e-6)
    # An explicit mask and is_causal=True together raise.
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=bottom_right, is_causal=True)


if __name__ == "__main__":
    _check()
