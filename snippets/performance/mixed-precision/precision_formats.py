"""fp16 vs bf16 vs fp8 vs TF32: range against precision, read off torch.finfo and proved with casts."""

# --8<-- [start:finfo]
import torch

for dtype in [torch.float32, torch.float16, torch.bfloat16]:
    # max: range; tiny: smallest normal; eps: gap just above 1.0
    info = torch.finfo(dtype)
    print(f"{str(dtype):15} max={info.max:<11.5g}",
          f"tiny={info.tiny:<11.4g} eps={info.eps:.4g}")
# > torch.float32   max=3.4028e+38  tiny=1.175e-38   eps=1.192e-07
# > torch.float16   max=65504       tiny=6.104e-05   eps=0.0009766
# > torch.bfloat16  max=3.3895e+38  tiny=1.175e-38   eps=0.007812
# --8<-- [end:finfo]

# --8<-- [start:range_vs_precision]
import torch

big = torch.tensor([70000.0])  # a logit, an attention score, a sum of squares
# fp16 overflows; bf16 keeps the range, rounded to 8 significant bits
print(big.half(), big.bfloat16())
# > tensor([inf], dtype=torch.float16) tensor([70144.], dtype=torch.bfloat16)
step = torch.tensor([1 + 1 / 256])  # 1.0 plus a small update
print(step.half(), step.bfloat16())  # fp16 has 10 mantissa bits, bf16 only 7
# > tensor([1.0039], dtype=torch.float16) tensor([1.], dtype=torch.bfloat16)
# --8<-- [end:range_vs_precision]

# --8<-- [start:fp8]
import torch

# 4 or 5 exponent bits, 3 or 2 mantissa bits
for dtype in [torch.float8_e4m3fn, torch.float8_e5m2]:
    info = torch.finfo(dtype)
    print(dtype, info.max, info.eps)
# > torch.float8_e4m3fn 448.0 0.125
# > torch.float8_e5m2 57344.0 0.25
x = torch.tensor([0.3, 3.0])
# a storage and matmul format: cast in, compute in scaled kernels
print(x.to(torch.float8_e4m3fn).float())
# > tensor([0.3125, 3.0000])
# --8<-- [end:fp8]

# --8<-- [start:scaled_mm]
import torch

a, b = torch.randn(16, 32), torch.randn(32, 8)
e4m3_max = torch.finfo(torch.float8_e4m3fn).max  # 448
# one scale per tensor: its largest magnitude lands on 448
scale_a, scale_b = a.abs().max() / e4m3_max, b.abs().max() / e4m3_max
a8 = (a / scale_a).to(torch.float8_e4m3fn)
# column-major, the layout the CUDA fp8 kernels expect
b8 = (b / scale_b).to(torch.float8_e4m3fn).t().contiguous().t()
out = torch._scaled_mm(a8, b8, scale_a=scale_a, scale_b=scale_b,
                       out_dtype=torch.bfloat16)
error = (out.float() - a @ b).norm() / (a @ b).norm()
print(out.dtype, "within 10 % of float32:", error.item() < 0.1)
# > torch.bfloat16 within 10 % of float32: True
# --8<-- [end:scaled_mm]

# --8<-- [start:tf32]
import torch

# the default: float32 matmuls in full IEEE precision
print(torch.get_float32_matmul_precision())
# > highest
# allow TF32 for float32 matmuls (Ampere and newer GPUs)
torch.set_float32_matmul_precision("high")
# the per-backend setting it switched
print(torch.backends.cuda.matmul.fp32_precision)
# > tf32
# cuDNN convolutions already default to TF32
print(torch.backends.cudnn.conv.fp32_precision)
# > tf32
torch.set_float32_matmul_precision("highest")
# --8<-- [end:tf32]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    import pytest

    f16, bf16, f32 = torch.finfo(torch.float16), torch.finfo(torch.bfloat16), torch.finfo(torch.float32)
    assert (f16.bits, f16.max, f16.eps, f16.tiny) == (16, 65504.0, 2.0**-10, 2.0**-14)
    assert (bf16.bits, bf16.eps, bf16.tiny) == (16, 2.0**-7, 2.0**-126)
    assert bf16.tiny == f32.tiny and bf16.max < f32.max and abs(bf16.max / f32.max - 1) < 0.01
    # fp16 overflows just past 65504; bf16 keeps huge values, coarsely rounded.
    assert torch.tensor(65504.0).half() == 65504 and torch.isinf(torch.tensor(65520.0).half())
    assert torch.tensor(1e38).bfloat16().isfinite()
    assert torch.isinf(torch.tensor(12.0).half().exp())  # e**12 = 162755 > 65504
    assert torch.tensor(12.0).bfloat16().exp().isfinite()
    # 1 + 1/256 survives in fp16 (eps 1/1024) and rounds back to 1 in bf16 (eps 1/128).
    assert step.half().item() == 1 + 1 / 256 and step.bfloat16().item() == 1.0

    # fp8: the two formats and their ranges; e4m3fn has no inf, e5m2 does; plain elementwise math isn't there.
    e4, e5 = torch.finfo(torch.float8_e4m3fn), torch.finfo(torch.float8_e5m2)
    assert (e4.bits, e4.max, e4.eps, e4.tiny) == (8, 448.0, 0.125, 2.0**-6)
    assert (e5.bits, e5.max, e5.eps, e5.tiny) == (8, 57344.0, 0.25, 2.0**-14)
    assert torch.isinf(torch.tensor(1e6).to(torch.float8_e5m2).float())
    assert torch.tensor(1000.0).to(torch.float8_e4m3fn).float() == 448  # the cast saturates: no inf to go to
    assert x.to(torch.float8_e5m2).float().tolist() == [0.3125, 3.0]
    with pytest.raises(NotImplementedError, match="not implemented for 'Float8_e4m3fn'"):
        torch.ones(2, dtype=torch.float8_e4m3fn) + torch.ones(2, dtype=torch.float8_e4m3fn)

    # torch._scaled_mm multiplies fp8 operands and applies the scales: the result is the float32 product
    # to fp8 precision, and without out_dtype it would come back in fp8 itself.
    torch.testing.assert_close(out.float(), (a8.float() * scale_a) @ (b8.float() * scale_b), rtol=2e-2, atol=2e-2)
    assert torch._scaled_mm(a8, b8, scale_a=scale_a, scale_b=scale_b).dtype == torch.float8_e4m3fn
    # Microscaling: the block scale of MXFP8/MXFP4 is E8M0, an 8-bit exponent with no mantissa, so every
    # scale is a power of two; FP4 (E2M1) is stored two values per byte.
    e8m0 = torch.finfo(torch.float8_e8m0fnu)
    assert e8m0.eps == 1.0 and e8m0.max == 2.0**127
    scales = torch.tensor([0.3, 3.0, 5.0, 1e-3]).to(torch.float8_e8m0fnu).float()
    assert torch.equal(scales, 2.0 ** scales.log2().round())
    assert torch.float4_e2m1fn_x2.itemsize == 1
    # 2.14's public scaled matmul names the recipes: per tensor, per row, and the block scalings
    # (1x32 blocks: MX formats; 1x16: NVFP4; 1x128 and 128x128: DeepSeek-style fp8).
    recipes = set(dir(torch.nn.functional.ScalingType))
    assert {"TensorWise", "RowWise", "BlockWise1x32", "BlockWise1x16", "BlockWise1x128", "BlockWise128x128"} <= recipes
    # The CUDA 13 wheel (cu130) is built for sm_75 (T4) and newer: a V100 (sm_70) is not in its list.
    if torch.version.cuda is not None and torch.version.cuda.startswith("13."):
        arches = torch.cuda.get_arch_list()
        assert "sm_75" in arches and "sm_70" not in arches and "sm_80" in arches

    # TF32: "high" switched the CUDA matmul setting; "highest" switches it back to IEEE.
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"
    # The legacy flag still works on 2.14.1, silently (no deprecation warning yet)...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.get_float32_matmul_precision() == "high"
        torch.backends.cuda.matmul.allow_tf32 = False
    assert torch.get_float32_matmul_precision() == "highest"
    # ...but setting the new per-backend knob directly leaves the legacy getters unable to answer.
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        with pytest.raises(RuntimeError, match="mix of the legacy and new APIs"):
            torch.get_float32_matmul_precision()
        with pytest.raises(RuntimeError, match="mix of the legacy and new APIs"):
            _ = torch.backends.cuda.matmul.allow_tf32
    finally:
        torch.set_float32_matmul_precision("highest")  # one consistent state again
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"
    with pytest.raises(RuntimeError, match="Unknown precision"):
        torch.backends.cuda.matmul.fp32_precision = "high"


if __name__ == "__main__":
    _check()
