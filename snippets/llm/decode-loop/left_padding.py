"""Batched generation with left padding: key mask, position ids from the mask, and tokens equal to one-by-one runs."""

# --8<-- [start:model]
import torch
import torch.nn.functional as F
from torch import nn


class TinyLM(nn.Module):  # learned absolute positions, so positions matter
    def __init__(self, vocab=32, d=32, heads=4, layers=2, max_len=32):
        super().__init__()
        self.heads = heads
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.layers = nn.ModuleList(
            nn.ModuleList([nn.Linear(d, 3 * d), nn.Linear(d, d)])
            for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, keep, attend=F.scaled_dot_product_attention):
        B, T = ids.shape  # keep: (B, T) bool, False at padding
        positions = (keep.cumsum(-1) - 1).clamp(min=0)  # 0 at each first token
        h = self.emb(ids) + self.pos(positions)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        mask = causal & keep[:, None, None, :]  # pad keys hidden from all
        for qkv, proj in self.layers:
            q, k, v = qkv(h).view(B, T, 3, self.heads, -1).unbind(2)
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, d)
            y = attend(q, k, v, attn_mask=mask)
            h = h + proj(y.transpose(1, 2).reshape(B, T, -1))
        return self.head(h)
# --8<-- [end:model]


# --8<-- [start:generate]
@torch.inference_mode()
def greedy(model, prompts, new_tokens, pad_id=0):
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id)
    keep = torch.zeros(len(prompts), width, dtype=torch.bool)
    for row, p in enumerate(prompts):  # left padding: prompts end together
        ids[row, width - len(p):] = torch.tensor(p)
        keep[row, width - len(p):] = True
    for _ in range(new_tokens):
        next_token = model(ids, keep)[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, next_token], dim=1)
        keep = torch.cat([keep, next_token >= 0], dim=1)  # a new real column
    return ids[:, width:]


torch.manual_seed(0)
model = TinyLM().eval()
prompts = [[5, 9, 2, 7, 3, 1], [4, 8], [6, 6, 2]]
batched = greedy(model, prompts, 5)
alone = [greedy(model, [p], 5)[0] for p in prompts]
print(all(torch.equal(b, a) for b, a in zip(batched, alone, strict=True)))
# > True
# --8<-- [end:generate]


# --8<-- [start:nan]
def hand_written(q, k, v, attn_mask):
    scores = q @ k.mT / q.shape[-1] ** 0.5
    scores = scores.masked_fill(~attn_mask, float("-inf"))
    return scores.softmax(-1) @ v  # a pad query row: all -inf -> NaN


ids = torch.tensor([[0, 0, 4, 8], [5, 9, 2, 7]])  # row 0 is left-padded
keep = ids != 0
with torch.inference_mode():
    fused = model(ids, keep)
    naive = model(ids, keep, attend=hand_written)
print(fused.isnan().any().item(), naive.isnan().any(-1).any(-1).tolist())
# > False [True, False]
# --8<-- [end:nan]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Tokens equal per-prompt runs; logits too, within rounding.
    for b, a in zip(batched, alone, strict=True):
        assert torch.equal(b, a)
    width = 6
    for p in prompts:
        ids_b = torch.zeros(1, width, dtype=torch.long)
        ids_b[0, width - len(p) :] = torch.tensor(p)
        with torch.inference_mode():
            padded = model(ids_b, ids_b != 0)[:, -1]
            single = model(torch.tensor([p]), torch.ones(1, len(p), dtype=torch.bool))[:, -1]
        torch.testing.assert_close(padded, single, atol=1e-5, rtol=1e-5)
    # SDPA returns zeros (no NaN) for fully masked pad query rows; the hand-written softmax gives NaN
    # that reaches every position of the padded row in the next layer (0 * NaN = NaN), none in the other row.
    assert not fused.isnan().any()
    # What SDPA itself returns for a query row whose keys are all masked: zeros (since 2.5), not NaN.
    qs, ks, vs = torch.randn(3, 1, 1, 2, 4)
    row_mask = torch.tensor([[False, False], [True, True]])  # query 0 sees no key
    out = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=row_mask)
    assert torch.equal(out[0, 0, 0], torch.zeros(4)) and not out.isnan().any()
    # RoPE: shifting every position by the same amount (left padding without position ids) leaves q·k
    # unchanged, because the scores depend on position differences only; absolute embeddings change (below).
    def rope(x, pos):
        half = x.shape[-1] // 2
        angle = pos[:, None] * 10_000 ** (-torch.arange(half) / half)
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()], -1)

    qr, kr = torch.randn(2, 5, 8)
    pos = torch.arange(5.0)
    torch.testing.assert_close(rope(qr, pos) @ rope(kr, pos).mT, rope(qr, pos + 4) @ rope(kr, pos + 4).mT,
                               atol=1e-5, rtol=1e-5)
    assert naive[0].isnan().all() and not naive[1].isnan().any()
    # Position ids matter with absolute embeddings: a naive arange shifts the prompt and changes logits.
    p = prompts[1]
    ids_b = torch.tensor([[0, 0, 0, 0] + p])
    keep_b = ids_b != 0
    with torch.inference_mode():
        right = model(ids_b, keep_b)[:, -1]
        h_pos = torch.arange(6)  # naive positions: the pads count
        saved = model.pos.forward
        model.pos.forward = lambda positions: saved(h_pos.expand_as(positions))
        wrong = model(ids_b, keep_b)[:, -1]
        model.pos.forward = saved
    assert (right - wrong).abs().max() > 0.1


if __name__ == "__main__":
    _check()
