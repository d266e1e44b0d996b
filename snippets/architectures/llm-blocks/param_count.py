"""Count a decoder on the meta device: GPT-2 small 124,439,808 = 12 blocks of 12d^2 + 13d plus embeddings."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn


class GPT2Block(nn.Module):  # MHA, a 4d GELU MLP, biases, two LayerNorms
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        n, t, d = x.shape
        qkv = self.qkv(self.ln1(x)).view(n, t, 3, self.heads, -1)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(n, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


def count(m):
    return sum(p.numel() for p in m.parameters())


d, V, ctx, layers = 768, 50257, 1024, 12
with torch.device("meta"):  # shapes only: nothing is allocated
    block = GPT2Block(d, 12)
    embeddings = nn.Embedding(V, d), nn.Embedding(ctx, d), nn.LayerNorm(d)
print(count(block), 12 * d**2 + 13 * d)
# > 7087872 7087872
total = layers * count(block) + sum(count(m) for m in embeddings)
print(f"{total:,}")  # the head is tied to the token embedding
# > 124,439,808
# --8<-- [end:demo]

# --8<-- [start:llama]
def llama_block(d, kv_heads, head_dim, hidden):  # GQA, SwiGLU, RMSNorm
    attention = 2 * d * d + 2 * d * kv_heads * head_dim
    return attention + 3 * d * hidden + 2 * d


d, V, layers = 4096, 128256, 32
per_block = llama_block(d, kv_heads=8, head_dim=128, hidden=14336)
print(f"{per_block:,}", f"{layers * per_block + 2 * V * d + d:,}")
# > 218,112,000 8,030,261,248
# --8<-- [end:llama]

# --8<-- [start:flops]
import torch
from torch.utils.flop_counter import FlopCounterMode

block = GPT2Block(256, 4)  # GPT2Block from above
x = torch.randn(1, 128, 256, requires_grad=True)
with FlopCounterMode(display=False) as fwd:
    y = block(x)
with FlopCounterMode(display=False) as bwd:
    y.sum().backward()
n_matmul = 12 * 256 * 256  # the weights of the four Linear layers
print(fwd.get_total_flops() == 2 * n_matmul * 128,
      bwd.get_total_flops() / fwd.get_total_flops())
# > True 2.0
# --8<-- [end:flops]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    class LlamaBlock(nn.Module):
        def __init__(self, d, kv, hd, hidden, experts=0):
            super().__init__()
            self.q, self.o = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
            self.k, self.v = nn.Linear(d, kv * hd, bias=False), nn.Linear(d, kv * hd, bias=False)
            self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
            n_mlp = experts or 1
            self.mlps = nn.ModuleList(
                nn.ModuleList(nn.Linear(*s, bias=False) for s in ((d, hidden), (d, hidden), (hidden, d)))
                for _ in range(n_mlp)
            )
            self.router = nn.Linear(d, experts, bias=False) if experts else None

    with torch.device("meta"):
        llama = LlamaBlock(4096, 8, 128, 14336)
        mixtral = LlamaBlock(4096, 8, 128, 14336, experts=8)
    assert count(llama) == llama_block(4096, 8, 128, 14336) == 218_112_000
    embed = 128256 * 4096
    assert embed == 525_336_576
    assert 32 * count(llama) + 2 * embed + 4096 == 8_030_261_248
    mix_total = 32 * count(mixtral) + 2 * 32000 * 4096 + 4096
    assert mix_total == 46_702_792_704
    expert = count(mixtral.mlps[0])
    active = mix_total - 32 * 6 * expert  # top-2 of 8 experts
    assert active == 12_879_925_248
    # SDPA on CPU counts 0 FLOPs by default; the math backend counts the full T^2, causal or not.
    q = torch.randn(1, 4, 128, 64)
    with FlopCounterMode(display=False) as plain:
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert plain.get_total_flops() == 0
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as math_fc:
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert math_fc.get_total_flops() == 4 * 1 * 4 * 128 * 128 * 64 == 16_777_216


if __name__ == "__main__":
    _check()
