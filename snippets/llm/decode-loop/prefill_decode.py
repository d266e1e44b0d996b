"""Prefill then decode with a KV cache: the cached logits equal a full recompute, and prefill costs T decode steps."""

# --8<-- [start:model]
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)

    def forward(self, x, cache):
        B, T, D = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.heads, D // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, T, d_head)
        if "k" in cache:  # decode: the cache holds only the past
            k = torch.cat([cache["k"], k], dim=2)
            v = torch.cat([cache["v"], v], dim=2)
        cache["k"], cache["v"] = k, v
        # prefill: causal over the prompt; decode: 1 query sees all keys
        y = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
        return x + self.proj(y.transpose(1, 2).reshape(B, T, D))


class TinyLM(nn.Module):
    def __init__(self, vocab=64, d=32, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids, caches, last_only=False):
        h = self.emb(ids)
        for block, cache in zip(self.blocks, caches, strict=True):
            h = block(h, cache)
        if last_only:  # prefill needs only the next token's logits
            h = h[:, -1:]
        return self.head(h)
# --8<-- [end:model]


# --8<-- [start:generate]
@torch.inference_mode()
def generate(model, prompt, new_tokens):
    caches = [{} for _ in model.blocks]
    logits = model(prompt, caches, last_only=True)  # prefill: T rows
    out, steps = prompt, []
    for _ in range(new_tokens):
        steps.append(logits[:, -1])
        token = logits[:, -1].argmax(-1, keepdim=True)
        out = torch.cat([out, token], dim=1)
        logits = model(token, caches)  # decode: 1 row per sequence
    return out, steps


torch.manual_seed(0)
model = TinyLM().eval()
prompt = torch.randint(0, 64, (1, 4))
out, steps = generate(model, prompt, 4)

with torch.inference_mode():  # the uncached way: rerun the whole prefix
    full = [model(out[:, : 4 + i], [{} for _ in model.blocks])[:, -1]
            for i in range(4)]
err = max((a - b).abs().max().item() for a, b in zip(steps, full, strict=True))
print(out.shape, err < 1e-5)
# > torch.Size([1, 8]) True
# --8<-- [end:generate]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.utils.flop_counter import FlopCounterMode

    # Every step's cached logits equal the recompute, and so does every chosen token.
    for a, b in zip(steps, full, strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    # FLOPs of the linear layers: a 4-token prefill costs exactly 4 decode steps.
    def mm_flops(ids, caches):
        with FlopCounterMode(display=False) as counter:
            with torch.inference_mode():
                model(ids, caches)
        counts = counter.get_flop_counts()["Global"]
        return sum(v for op, v in counts.items() if "mm" in str(op))

    caches = [{} for _ in model.blocks]
    prefill = mm_flops(prompt, caches)
    decode = mm_flops(out[:, 4:5], caches)
    # last_only=False here: the head runs on every row, so the count is per token
    assert prefill == 4 * decode, (prefill, decode)
    # last-position-only head: same next token, a T-times smaller logits tensor.
    with torch.inference_mode():
        every = model(prompt, [{} for _ in model.blocks])
        last = model(prompt, [{} for _ in model.blocks], last_only=True)
    assert every.shape == (1, 4, 64) and last.shape == (1, 1, 64)
    torch.testing.assert_close(every[:, -1:], last)
    assert torch.equal(every[:, -1].argmax(-1), last[:, -1].argmax(-1))


if __name__ == "__main__":
    _check()
