"""Packing documents: a block-diagonal causal mask and per-document positions make packed = separate forwards."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
D, H = 16, 2
emb, pos_emb = nn.Embedding(50, D), nn.Embedding(32, D)  # absolute positions
qkv = nn.Linear(D, 3 * D)


def rope(x, pos):  # rotate pairs of features by position-dependent angles
    half = x.shape[-1] // 2
    angle = pos[:, None] / 10000 ** (torch.arange(half) / half)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * angle.cos() - x2 * angle.sin(),
                      x1 * angle.sin() + x2 * angle.cos()], dim=-1)


@torch.no_grad()
def attend(ids, pos, mask, use_rope):
    h = emb(ids) if use_rope else emb(ids) + pos_emb(pos)
    q, k, v = qkv(h).view(len(ids), 3, H, -1).permute(1, 2, 0, 3)
    if use_rope:
        q, k = rope(q, pos), rope(k, pos)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


docs = [torch.randint(0, 50, (n,)) for n in (5, 3, 8)]
ids = torch.cat(docs)  # one packed row of 16 tokens
doc_id = torch.cat([torch.full((len(d),), i) for i, d in enumerate(docs)])
causal = torch.ones(16, 16, dtype=torch.bool).tril()
doc_mask = causal & (doc_id[:, None] == doc_id[None, :])  # block-diagonal
running = torch.arange(16)
reset = torch.cat([torch.arange(len(d)) for d in docs])  # 0 at each start



def separately(use_rope):  # each document alone, positions from 0
    return torch.cat([attend(d, torch.arange(len(d)), causal[:len(d), :len(d)],
                             use_rope) for d in docs], dim=1)


setups = [(doc_mask, reset), (doc_mask, running), (causal, reset)]
for use_rope in (True, False):
    separate = separately(use_rope)
    errors = [(attend(ids, pos, mask, use_rope) - separate).abs().max()
              for mask, pos in setups]
    print("rope" if use_rope else "absolute", [f"{e:.2f}" for e in errors])
# > rope ['0.00', '0.00', '1.60']
# > absolute ['0.00', '2.09', '2.26']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    for use_rope in (True, False):
        separate = separately(use_rope)
        # Document mask + reset positions: equal to separate forwards, for both position schemes.
        torch.testing.assert_close(attend(ids, reset, doc_mask, use_rope), separate, atol=1e-5, rtol=1e-5)
        # Causal only: tokens attend across documents.
        assert not torch.allclose(attend(ids, reset, causal, use_rope), separate, atol=1e-3)
        running_out = attend(ids, running, doc_mask, use_rope)
        if use_rope:  # RoPE: only offsets within a document matter, so running positions are equivalent
            torch.testing.assert_close(running_out, separate, atol=1e-5, rtol=1e-5)
        else:  # absolute embeddings need the reset
            assert not torch.allclose(running_out, separate, atol=1e-3)


if __name__ == "__main__":
    _check()
