"""fp8 and fp4 formats on 2.14: the dtypes, block-scaled microscaling, and torch._scaled_mm."""

# --8<-- [start:formats]
import torch

for dtype in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu):
    print(str(dtype).removeprefix("torch."), torch.finfo(dtype).max)
# > float8_e4m3fn 448.0
# > float8_e5m2 57344.0
# > float8_e8m0fnu 1.7014118346046923e+38

# fp4 (E2M1) has no finfo: two values are packed into each byte
packed = torch.empty(8, dtype=torch.float4_e2m1fn_x2)
print(packed.element_size(), "byte per element, 2 fp4 values in it")
# > 1 byte per element, 2 fp4 values in it

# block-scaled formats: element bits + one shared scale per block
formats = {  # element bits, block size, scale bits (scale format)
    "MXFP8": (8, 32, 8),  # E4M3 or E5M2 elements, E8M0 scale
    "MXFP4": (4, 32, 8),  # E2M1 elements, E8M0 scale
    "NVFP4": (4, 16, 8),  # E2M1 elements, E4M3 scale (+ a tensor scale)
}
for name, (bits, block, scale_bits) in formats.items():
    print(name, bits + scale_bits / block, "bits per element")
# > MXFP8 8.25 bits per element
# > MXFP4 4.25 bits per element
# > NVFP4 4.5 bits per element
# --8<-- [end:formats]

# --8<-- [start:block_scaling]
import torch


def fp8_error(x, scale):
    q = (x / scale).to(torch.float8_e4m3fn)  # what is stored
    return ((q.float() * scale - x).abs() / x.abs()).median().item()


x = torch.randn(4096) * 1e-4
x[0] = 100.0  # one outlier
per_tensor = x.abs().max() / 448  # one scale: the outlier sets it
blocks = x.view(-1, 32)
# MX: one power-of-two (E8M0) scale per block of 32 values
amax = blocks.abs().amax(dim=1, keepdim=True)
per_block = torch.exp2(torch.ceil(torch.log2(amax / 448)))
print(f"median error, one scale: {fp8_error(x, per_tensor):.0%}")
# > median error, one scale: 100%
print("per block of 32, under 5 %:", fp8_error(blocks, per_block) < 0.05)
# > per block of 32, under 5 %: True
# --8<-- [end:block_scaling]

# --8<-- [start:scaled_mm]
import torch

a, b = torch.randn(64, 128), torch.randn(128, 32)
scale_a, scale_b = a.abs().max() / 448, b.abs().max() / 448
a8 = (a / scale_a).to(torch.float8_e4m3fn)
b8 = (b / scale_b).to(torch.float8_e4m3fn).t().contiguous().t()  # col-major
# fp8 x fp8, accumulated in higher precision, times scale_a * scale_b
out = torch._scaled_mm(a8, b8, scale_a, scale_b, out_dtype=torch.float32)
ref = a @ b
print(out.shape, out.dtype, (out - ref).norm() / ref.norm() < 0.05)
# > torch.Size([64, 32]) torch.float32 tensor(True)
# --8<-- [end:scaled_mm]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math

    import pytest

    # The dtypes exist, one byte each, with these maxima: e4m3fn 448 (no
    # infinity), e5m2 57344, e8m0 a power of two only, up to 2**127.
    assert torch.finfo(torch.float8_e4m3fn).max == 448.0
    assert torch.finfo(torch.float8_e5m2).max == 57344.0
    assert torch.finfo(torch.float8_e8m0fnu).max == 2.0**127
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu):
        assert torch.empty(1, dtype=dtype).element_size() == 1
    # E8M0 holds only powers of two: 3 is stored as a neighbouring power.
    three = torch.tensor([3.0]).to(torch.float8_e8m0fnu).float().item()
    assert three in (2.0, 4.0) and math.log2(three).is_integer()
    # fp4 E2M1: 1 sign, 2 exponent (bias 1), 1 mantissa bit -> 16 codes, the
    # magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; max 6. No finfo for it on 2.14.
    mags = sorted(
        {
            (m / 2 if e == 0 else (1 + m / 2) * 2 ** (e - 1))
            for e in range(4)
            for m in range(2)
        }
    )
    assert mags == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    assert packed.element_size() == 1
    with pytest.raises(NotImplementedError, match="not implemented"):
        _ = torch.finfo(torch.float4_e2m1fn_x2).max
    # One scale per tensor: the outlier's scale flushes the small values to 0.
    small = (x[1:] / per_tensor).to(torch.float8_e4m3fn).float()
    assert (small == 0).float().mean() > 0.9
    # Bits per element, block sizes 32 (MX) and 16 (NVFP4), 8-bit scales.
    assert formats["MXFP8"][1] == formats["MXFP4"][1] == 32
    assert formats["NVFP4"][1] == 16
    # Block scaling beats one scale per tensor when an outlier is present.
    assert fp8_error(blocks, per_block) < fp8_error(x, per_tensor) / 2
    assert torch.all(
        torch.log2(per_block) == torch.round(torch.log2(per_block))
    )
    # torch._scaled_mm: the schema names its arguments; the result is the
    # product of the dequantized fp8 operands.
    schema = str(torch.ops.aten._scaled_mm.default._schema)
    for arg in (
        "Tensor scale_a",
        "Tensor scale_b",
        "out_dtype",
        "use_fast_accum",
    ):
        assert arg in schema
    deq = (a8.float() * scale_a) @ (b8.float() * scale_b)
    torch.testing.assert_close(out, deq, rtol=1e-4, atol=1e-4)
    # The public, recipe-based API exists too, with the block-scaled recipes.
    import torch.nn.functional as F

    for recipe in ("TensorWise", "RowWise", "BlockWise1x16", "BlockWise1x32"):
        assert hasattr(F.ScalingType, recipe)
    tensorwise = F.ScalingType.TensorWise
    torch.testing.assert_close(
        F.scaled_mm(
            a8,
            b8,
            scale_a,
            tensorwise,
            scale_b,
            tensorwise,
            output_dtype=torch.float32,
        ),
        out,
    )


if __name__ == "__main__":
    _check()
