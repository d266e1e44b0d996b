"""fp16 vs bf16 vs fp8 vs TF32: range against precision, read off torch.finfo and proved with casts."""

# --8<-- [start:finfo]
import torch

for dtype in [torch.float32, torch.float16, torch.bfloat16]:
    info = torch.finfo(dtype)  # max: range; tiny: smallest normal; eps: gap just above 1.0
    print(f"{str(dtype):15} max={info.max:<11.5g} tiny={info.tiny:<11.4g} eps={info.eps:.4g}")
# > torch.float32   max=3.4028e+38  tiny=1.175e-38   eps=1.192e-07
# > torch.float16   max=65504       tiny=6.104e-05   eps=0.0009766
# > torch.bfloat16  max=3.3895e+38  tiny=1.175e-38   eps=0.007812
# --8<-- [end:finfo]

# --8<-- [start:range_vs_precision]
import torch

big = torch.tensor([70000.0])  # a logit, an attention score, a sum of squares
print(big.half(), big.bfloat16())  # fp16 overflows; bf16 keeps the range, rounded to 8 significant bits
# > tensor([inf], dtype=torch.float16) tensor([70144.], dtype=torch.bfloat16)
step = torch.tensor([1 + 1 / 256])  # 1.0 plus a small update
print(step.half(), step.bfloat16())  # fp16 has 10 mantissa bits, bf16 only 7
# > tensor([1.0039], dtype=torch.float16) tensor([1.], dtype=torch.bfloat16)
# --8<-- [end:range_vs_precision]

# --8<-- [start:fp8]
import torch

for dtype in [torch.float8_e4m3fn, torch.float8_e5m2]:  # 4 or 5 exponent bits, 3 or 2 mantissa bits
    info = torch.finfo(dtype)
    print(dtype, info.max, info.eps)
# > torch.float8_e4m3fn 448.0 0.125
# > torch.float8_e5m2 57344.0 0.25
x = torch.tensor([0.3, 3.0])
print(x.to(torch.float8_e4m3fn).float())  # a storage and matmul format: cast in, compute in scaled kernels
# > tensor([0.3125, 3.0000])
# --8<-- [end:fp8]

# --8<-- [start:tf32]
import torch

print(torch.get_float32_matmul_precision())  # the default: float32 matmuls in full IEEE precision
# > highest
torch.set_float32_matmul_precision("high")  # allow TF32 for float32 matmuls (Ampere and newer GPUs)
print(torch.backends.cuda.matmul.fp32_precision)  # the per-backend setting it switched
# > tf32
print(torch.backends.cudnn.conv.fp32_precision)  # cuDNN convolutions already default to TF32
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
