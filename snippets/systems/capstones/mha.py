"""Multi-head self-attention with padding and causal masks, checked against scaled_dot_product_attention."""

# --8<-- [start:demo]
import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        assert dim % heads == 0
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, pad_mask=None, causal=False):
        """x: (B, T, D); pad_mask: (B, T) bool, True at padding tokens."""
        B, T, D = x.shape
        # 3 x (B, H, T, hd)
        q, k, v = (
            self.qkv(x)
            .view(B, T, 3, self.heads, self.head_dim)
            .permute(2, 0, 3, 1, 4)
        )
        # (B, H, T, T)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()  # query i sees keys 0..i
        if pad_mask is not None:
            # no query attends to a padded key
            allowed = allowed & ~pad_mask[:, None, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        context = scores.softmax(dim=-1) @ v  # (B, H, T, hd)
        return self.out(context.transpose(1, 2).reshape(B, T, D)), allowed


attn = MultiHeadSelfAttention(dim=32, heads=4)
x = torch.randn(2, 5, 32)
# right padding
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
ours, allowed = attn(x, pad_mask=pad, causal=True)

q, k, v = attn.qkv(x).view(2, 5, 3, 4, 8).permute(2, 0, 3, 1, 4)
# bool mask: True = may attend
reference = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
reference = attn.out(reference.transpose(1, 2).reshape(2, 5, 32))
torch.testing.assert_close(ours, reference)
print(ours.shape)
# > torch.Size([2, 5, 32])
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Causal only: SDPA's own is_causal gives the same result.
    out_causal, _ = attn(x, causal=True)
    q2, k2, v2 = attn.qkv(x).view(2, 5, 3, 4, 8).permute(2, 0, 3, 1, 4)
    ref = F.scaled_dot_product_attention(q2, k2, v2, is_causal=True)
    torch.testing.assert_close(
        out_causal, attn.out(ref.transpose(1, 2).reshape(2, 5, 32))
    )
    # Padding only: matches nn.MultiheadAttention with key_padding_mask when the weights are shared.
    mha = nn.MultiheadAttention(32, 4, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(attn.qkv.weight)
        mha.in_proj_bias.copy_(attn.qkv.bias)
        mha.out_proj.weight.copy_(attn.out.weight)
        mha.out_proj.bias.copy_(attn.out.bias)
    out_pad, _ = attn(x, pad_mask=pad)
    torch.testing.assert_close(
        out_pad, mha(x, x, x, key_padding_mask=pad, need_weights=False)[0]
    )
    # What sits in a padded key position does not change any output.
    x2 = x.clone()
    x2[1, 3:] = 100.0
    out2, _ = attn(x2, pad_mask=pad, causal=True)
    torch.testing.assert_close(out2[1, :3], ours[1, :3])
    # Gradients agree with the SDPA path too.
    g_ours = torch.autograd.grad(
        ours.sum(), attn.qkv.weight, retain_graph=True
    )[0]
    g_ref = torch.autograd.grad(reference.sum(), attn.qkv.weight)[0]
    torch.testing.assert_close(g_ours, g_ref)


if __name__ == "__main__":
    _check()
