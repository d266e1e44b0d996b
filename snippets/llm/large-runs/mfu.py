"""MFU from first principles: 6N + 12·L·d·T FLOPs per token, checked against FlopCounterMode on a toy GPT."""

# --8<-- [start:formula]
def mfu(tokens_per_step, step_seconds, n_gpus, n_params, layers, d_model,
        seq_len, peak_flops):
    """Model FLOPs utilization (PaLM's convention: no recomputation,
    dense attention term, dense bf16 peak)."""
    flops_per_token = 6 * n_params + 12 * layers * d_model * seq_len
    tokens_per_gpu = tokens_per_step / step_seconds / n_gpus
    return tokens_per_gpu * flops_per_token / peak_flops, tokens_per_gpu


# an 8B-shaped model (32 layers, d 4096) at 8k context on 64 H100s
util, tps = mfu(tokens_per_step=4 * 2**20, step_seconds=9.0, n_gpus=64,
                n_params=8e9, layers=32, d_model=4096, seq_len=8192,
                peak_flops=989e12)
print(f"{tps:,.0f} tokens/s/GPU, MFU {util:.1%}")
# > 7,282 tokens/s/GPU, MFU 44.8%
# --8<-- [end:formula]

# --8<-- [start:count]
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

L, D, T, V = 2, 64, 64, 256


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.proj = nn.Linear(D, D, bias=False)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D, bias=False), nn.GELU(),
                                 nn.Linear(4 * D, D, bias=False))

    def forward(self, x):
        q, k, v = self.qkv(x).view(1, T, 3, 4, D // 4).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(1, T, D))
        return x + self.mlp(x)


model = nn.Sequential(nn.Embedding(V, D), *[Block() for _ in range(L)],
                      nn.Linear(D, V, bias=False))
ids = torch.randint(0, V, (1, T))
n = sum(p.numel() for name, p in model.named_parameters()
        if not name.startswith("0."))  # matmul weights: no embedding
formula = 6 * n * T + 12 * L * D * T * T  # per step of T tokens

for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION):
    with sdpa_kernel([backend]), FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(ids)[0], ids[0]).backward()
    print(backend.name, counter.get_total_flops(), formula)
# > MATH 50331648 50331648
# > FLASH_ATTENTION 44040192 50331648
# --8<-- [end:count]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert n == 114_688
    assert 6 * n * T == 44_040_192
    # MATH: the counter equals 6N·tokens + 12·L·d·T·tokens exactly (attention counted dense, causal or not):
    # the runner compares the printed `MATH 50331648 50331648` line with the real run, and that is the formula.
    assert formula == 6 * n * T + 12 * L * D * T * T == 50_331_648
    # The CPU flash kernel has no FLOP formula: the attention term is missing. `counter` is the loop's last
    # one, the FLASH_ATTENTION step (not rerun here: counting a step twice only cost time).
    assert backend is SDPBackend.FLASH_ATTENTION
    assert counter.get_total_flops() == 6 * n * T
    # The worked example, and the attention term's share at 8k for the 8B shape (~27 % of 6N).
    assert abs(util - 0.448) < 0.001
    share = 12 * 32 * 4096 * 8192 / (6 * 8e9)
    assert 0.25 < share < 0.28


if __name__ == "__main__":
    _check()
