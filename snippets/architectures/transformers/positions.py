"""Attention without a mask is permutation-equivariant; sinusoidal encodings shift by a fixed rotation."""

# --8<-- [start:demo]
import torch
from torch import nn

mha = nn.MultiheadAttention(16, 2, batch_first=True)
x = torch.randn(1, 6, 16)
perm = torch.tensor([3, 0, 5, 1, 4, 2])
out = mha(x, x, x, need_weights=False)[0]
out_p = mha(x[:, perm], x[:, perm], x[:, perm], need_weights=False)[0]
print(torch.allclose(out[:, perm], out_p, atol=1e-6))  # a bag of tokens
# > True
causal = nn.Transformer.generate_square_subsequent_mask(6)
out = mha(x, x, x, attn_mask=causal, need_weights=False)[0]
out_p = mha(x[:, perm], x[:, perm], x[:, perm], attn_mask=causal,
            need_weights=False)[0]
print(torch.allclose(out[:, perm], out_p, atol=1e-6))  # order now matters
# > False
# --8<-- [end:demo]

# --8<-- [start:sinusoidal]
import torch


def sinusoidal(n_pos, d, base=10000.0):
    pos = torch.arange(n_pos, dtype=torch.float64)[:, None]
    freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.zeros(n_pos, d, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return pe


pe = sinusoidal(64, 16)
gram = pe @ pe.T  # <PE(p), PE(q)> depends only on p - q
print(all(gram.diagonal(k).std() < 1e-9 for k in range(-60, 61)))
# > True
# --8<-- [end:sinusoidal]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # PE(p + 5) = R_5 PE(p) for one fixed linear map R_5 (a rotation per frequency pair).
    shift = 5
    r5, *_ = torch.linalg.lstsq(pe[:-shift], pe[shift:])
    torch.testing.assert_close(pe[:-shift] @ r5, pe[shift:])
    torch.testing.assert_close(sinusoidal(80, 16)[70:75], sinusoidal(80, 16)[65:70] @ r5)  # also past the fit
    # A learned table has a hard limit.
    table = torch.nn.Embedding(512, 16)
    with pytest.raises(IndexError, match="index out of range in self"):
        table(torch.tensor([512]))


if __name__ == "__main__":
    _check()
