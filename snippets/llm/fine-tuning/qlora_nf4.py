"""QLoRA's storage: blockwise NF4 codes with absmax scales, bits per parameter, and a frozen
4-bit base under training."""

# --8<-- [start:demo]
import torch

NF4 = torch.tensor([  # 16 levels at quantiles of N(0, 1), scaled to [-1, 1]
    -1.0, -0.6962, -0.5251, -0.3949, -0.2844, -0.1848, -0.0911, 0.0,
    0.0796, 0.1609, 0.2461, 0.3379, 0.4407, 0.5626, 0.7230, 1.0])
UNIFORM = torch.linspace(-1, 1, 16)  # a plain 4-bit grid, for comparison


def quantize(w, levels, block=64):
    blocks = w.reshape(-1, block)
    absmax = blocks.abs().amax(-1, keepdim=True)  # one scale per block
    codes = (blocks / absmax)[..., None].sub(levels).abs().argmin(-1)
    return codes.to(torch.uint8), absmax


def dequantize(codes, absmax, levels, shape):
    return (levels[codes.long()] * absmax).reshape(shape)


torch.manual_seed(0)
w = torch.randn(256, 256)  # weights are roughly bell-shaped
for name, levels in (("nf4", NF4), ("uniform", UNIFORM)):
    codes, absmax = quantize(w, levels)
    mse = (dequantize(codes, absmax, levels, w.shape) - w).pow(2).mean()
    print(name, round(mse.item(), 4))
# > nf4 0.0084
# > uniform 0.0101

plain = 4 + 32 / 64  # 4-bit code + an fp32 absmax per 64 weights
double = 4 + 8 / 64 + 32 / (64 * 256)  # scales in 8 bits + fp32 per 256
print(plain, round(double, 3), f"7B base: {7e9 * double / 8 / 1e9:.1f} GB")
# > 4.5 4.127 7B base: 3.6 GB
# --8<-- [end:demo]

# --8<-- [start:train]
from torch import nn

codes, absmax = quantize(w, NF4)
A = nn.Parameter(torch.randn(8, 256) * 0.01)  # bf16 in QLoRA; fp32 here
B = nn.Parameter(torch.zeros(256, 8))
optimizer = torch.optim.AdamW([A, B], lr=1e-3)
x = torch.randn(16, 256)

weight = dequantize(codes, absmax, NF4, w.shape)  # just in time, per use
loss = (x @ weight.T + x @ A.T @ B.T).square().mean()
loss.backward()  # gradients reach the adapters through the dequantized W
optimizer.step()
print(codes.dtype, B.grad.abs().sum().item() > 0)
# > torch.uint8 True
# --8<-- [end:train]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    c_nf4, s_nf4 = quantize(w, NF4)
    c_uni, s_uni = quantize(w, UNIFORM)
    mse_nf4 = (dequantize(c_nf4, s_nf4, NF4, w.shape) - w).pow(2).mean()
    mse_uni = (dequantize(c_uni, s_uni, UNIFORM, w.shape) - w).pow(2).mean()
    assert mse_nf4 < mse_uni  # NF4 fits normal weights better than a uniform grid
    assert c_nf4.max() <= 15 and c_nf4.dtype == torch.uint8
    assert plain == 4.5 and abs(double - 4.127) < 1e-3
    # The codes never change under training; only the adapters have gradients and moved.
    assert torch.equal(codes, c_nf4)
    assert A.grad is not None and B.grad.abs().sum() > 0
    assert B.abs().sum() > 0  # B moved off zero


if __name__ == "__main__":
    _check()
