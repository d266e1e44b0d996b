"""Mask polarity: True = blocked for nn.MultiheadAttention, True = allowed for SDPA; is_causal differs too."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

E, heads, L = 8, 2, 5
mha = nn.MultiheadAttention(E, heads, batch_first=True)  # default: False
x = torch.randn(2, L, E)
allowed = torch.rand(L, L) > 0.3
allowed.fill_diagonal_(True)  # every query keeps at least one key

# MHA: True = blocked, so pass the complement
out_mha, _ = mha(x, x, x, attn_mask=~allowed, need_weights=False)


def sdpa_with_mha_weights(x, mask):
    qkv = F.linear(x, mha.in_proj_weight, mha.in_proj_bias)
    q, k, v = qkv.view(2, L, 3, heads, E // heads).permute(2, 0, 3, 1, 4)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # True = keep
    return mha.out_proj(o.transpose(1, 2).reshape(2, L, E))


print(torch.allclose(out_mha, sdpa_with_mha_weights(x, allowed), atol=1e-6))
# > True
# --8<-- [end:demo]

assert F  # used above, in functions the next section's import shadows

# --8<-- [start:fully_masked]
import torch
import torch.nn.functional as F

q = k = v = torch.randn(1, 1, 3, 4)
mask = torch.ones(3, 3, dtype=torch.bool)
mask[1] = False  # query 1 may attend to nothing
print(F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[0, 0, 1])
# > tensor([0., 0., 0., 0.])
scores = (q @ k.mT).masked_fill(~mask, float("-inf"))
print(torch.softmax(scores, dim=-1)[0, 0, 1])  # by hand
# > tensor([nan, nan, nan])
# --8<-- [end:fully_masked]

# --8<-- [start:causal]
import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

q = torch.randn(1, 1, 1, 8)  # one new token
k, v = torch.randn(1, 1, 5, 8), torch.randn(1, 1, 5, 8)  # 5 cached keys
top_left = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(top_left, v[:, :, :1]))  # it sees only key 0
# > True
lower_right = causal_lower_right(1, 5)  # aligned to the last key
right = F.scaled_dot_product_attention(q, k, v, attn_mask=lower_right)
print(torch.allclose(right, F.scaled_dot_product_attention(q, k, v)))
# > True
# --8<-- [end:causal]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch import nn as tnn

    # Float masks add in both APIs.
    float_mask = torch.zeros(L, L).masked_fill(~allowed, float("-inf"))
    torch.testing.assert_close(mha(x, x, x, attn_mask=float_mask, need_weights=False)[0], out_mha)
    torch.testing.assert_close(sdpa_with_mha_weights(x, float_mask), out_mha)
    # key_padding_mask (True = pad) == SDPA with the inverted mask broadcast over queries.
    kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
    ref = sdpa_with_mha_weights(x, (~kpm)[:, None, None, :])
    torch.testing.assert_close(mha(x, x, x, key_padding_mask=kpm, need_weights=False)[0], ref)
    # generate_square_subsequent_mask is a float mask.
    causal_float = tnn.Transformer.generate_square_subsequent_mask(L)
    assert causal_float.dtype == torch.float32 and causal_float[0].tolist() == [0.0] + [float("-inf")] * 4
    causal_bool = torch.ones(L, L, dtype=torch.bool).tril()
    causal_ref = sdpa_with_mha_weights(x, causal_bool)
    # is_causal in MHA is a hint that needs attn_mask.
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True, need_weights=False)
    nothing_blocked = torch.zeros(L, L, dtype=torch.bool)
    hint = mha(x, x, x, attn_mask=nothing_blocked, is_causal=True, need_weights=False)[0]
    torch.testing.assert_close(hint, causal_ref)  # the hint replaced the mask
    weights_path = mha(x, x, x, attn_mask=nothing_blocked, is_causal=True, need_weights=True)[0]
    torch.testing.assert_close(weights_path, sdpa_with_mha_weights(x, None))  # the mask won
    # SDPA refuses both.
    qh = torch.randn(1, 1, 4, 8)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        both = torch.ones(4, 4, dtype=torch.bool)
        F.scaled_dot_product_attention(qh, qh, qh, attn_mask=both, is_causal=True)
    # Fully masked rows in MHA: NaN with need_weights=True, zeros on the SDPA path.
    all_pad = torch.tensor([[False] * 5, [True] * 5])
    with_w = mha(x, x, x, key_padding_mask=all_pad, need_weights=True)[0]
    without = mha(x, x, x, key_padding_mask=all_pad, need_weights=False)[0]
    assert with_w[1].isnan().all() and not without[1].isnan().any()
    torch.testing.assert_close(without[1], mha.out_proj.bias.expand(L, E))  # zeros, projected
    # ... and NaN again on the inference fast path (eval mode, no autograd).
    with torch.inference_mode():
        fast = mha.eval()(x, x, x, key_padding_mask=all_pad, need_weights=False)[0]
    mha.train()
    assert fast[1].isnan().all() and not fast[0].isnan().any()
    assert tnn.MultiheadAttention(E, heads).batch_first is False  # the default: (L, N, E)
    # The 3-D mask wants N * heads.
    shape_message = r"The shape of the 3D attn_mask is torch.Size\(\[2, 5, 5\]\), but should be \(4, 5, 5\)"
    with pytest.raises(RuntimeError, match=shape_message):
        mha(x, x, x, attn_mask=torch.zeros(2, L, L, dtype=torch.bool))
    # Mixing a bool key_padding_mask with a float attn_mask is deprecated.
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        mha(x, x, x, attn_mask=float_mask, key_padding_mask=kpm, need_weights=False)
    # Averaged weights by default.
    assert mha(x, x, x)[1].shape == (2, L, L)
    assert mha(x, x, x, average_attn_weights=False)[1].shape == (2, heads, L, L)


if __name__ == "__main__":
    _check()
