"""The formulas behind the match drill, each checked against a built module."""

# --8<-- [start:demo]
import torch
from torch import nn

d, h, V, H_kv, hd, E = 64, 176, 100, 2, 16, 4
with torch.device("meta"):
    mlp_gelu = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                             nn.Linear(4 * d, d))
    swiglu = [nn.Linear(d, h, bias=False), nn.Linear(d, h, bias=False),
              nn.Linear(h, d, bias=False)]
    cases = {
        "MHA": (nn.MultiheadAttention(d, 4), 4 * d * d + 4 * d),
        "GELU MLP": (mlp_gelu, 8 * d * d + 5 * d),
        "SwiGLU MLP": (nn.ModuleList(swiglu), 3 * d * h),
        "LayerNorm": (nn.LayerNorm(d), 2 * d),
        "RMSNorm": (nn.RMSNorm(d), d),
        "LSTM layer": (nn.LSTM(32, d), 4 * (d * 32 + d * d + 2 * d)),
    }
for name, (module, formula) in cases.items():
    n = sum(p.numel() for p in module.parameters())
    print(f"{name:11} {n:6} {n == formula}")
# > MHA          16640 True
# > GELU MLP     33088 True
# > SwiGLU MLP   33792 True
# > LayerNorm      128 True
# > RMSNorm         64 True
# > LSTM layer   25088 True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    def count(*modules):
        return sum(p.numel() for m in modules for p in m.parameters())

    with torch.device("meta"):
        gqa = [nn.Linear(d, d, bias=False), nn.Linear(d, H_kv * hd, bias=False),
               nn.Linear(d, H_kv * hd, bias=False), nn.Linear(d, d, bias=False)]
        embed, head = nn.Embedding(V, d), nn.Linear(d, V, bias=False)
        router = nn.Linear(d, E, bias=False)
        experts = [nn.Linear(*s, bias=False) for _ in range(E) for s in ((d, h), (d, h), (h, d))]
    assert count(*gqa) == 2 * d * d + 2 * d * H_kv * hd
    assert count(embed, head) == 2 * V * d  # untied
    head.weight = embed.weight
    assert len({id(p) for m in (embed, head) for p in m.parameters()}) == 1  # tied: V * d
    assert count(router, *experts) == E * 3 * d * h + d * E
    for module, formula in cases.values():
        assert count(module) == formula


if __name__ == "__main__":
    _check()
