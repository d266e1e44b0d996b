"""Weight-only int8 by hand: a per-channel scale, dequantize, and the error bound it guarantees."""

# --8<-- [start:demo]
import torch

w = torch.randn(64, 128)  # a Linear's weight: (out_features, in_features)
# one scale per output channel (row)
scale = w.abs().amax(dim=1, keepdim=True) / 127
q = torch.round(w / scale).clamp(-127, 127).to(torch.int8)  # what you store
w_hat = q.float() * scale  # dequantized on the fly inside the matmul kernel

print(
    q.dtype,
    q.element_size() * q.numel() + scale.numel() * 4,
    "bytes vs",
    w.numel() * 4,
)
# > torch.int8 8448 bytes vs 32768
# rounding error is at most half a step
print(bool(((w - w_hat).abs() <= scale / 2 + 1e-7).all()))
# > True
# --8<-- [end:demo]

# --8<-- [start:outlier]
import torch

w = torch.randn(64, 128)
w[0, 0] = 100.0  # one outlier weight


def int8_error(w, scale):
    w_hat = torch.round(w / scale).clamp(-127, 127) * scale
    return (w - w_hat).abs().mean().item()


# one scale: the outlier sets the step for everyone
per_tensor = int8_error(w, w.abs().max() / 127)
# only row 0 pays
per_channel = int8_error(w, w.abs().amax(dim=1, keepdim=True) / 127)
print(per_tensor > 10 * per_channel)
# > True
# --8<-- [end:outlier]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.manual_seed(0)
    weight = torch.randn(64, 128)
    s = weight.abs().amax(dim=1, keepdim=True) / 127
    qw = torch.round(weight / s).clamp(-127, 127).to(torch.int8)
    deq = qw.float() * s
    # The bound holds and the largest weight of each row is exact (it maps to +-127).
    assert ((weight - deq).abs() <= s / 2 + 1e-7).all()
    assert (qw.abs().amax(dim=1) == 127).all()
    # A linear layer with dequantized weights stays close to the float one.
    x = torch.randn(8, 128)
    out, out_q = x @ weight.T, x @ deq.T
    assert ((out - out_q).norm() / out.norm()).item() < 0.01
    # Compression: int8 plus one float32 scale per row is about 3.9x smaller than float32.
    assert 32768 / 8448 > 3.8
    assert per_tensor > 10 * per_channel
    # int4 has 16 codes (-8..7); a symmetric scheme (amax -> 7) uses 15.
    half = torch.randn(2048)
    big = torch.cat([half, -half])  # both signs reach the extremes
    q4 = torch.round(big / (big.abs().max() / 8)).clamp(-8, 7)
    assert q4.unique().numel() == 16
    sym = torch.round(big / (big.abs().max() / 7)).clamp(-7, 7)
    assert sym.unique().numel() == 15


if __name__ == "__main__":
    _check()
