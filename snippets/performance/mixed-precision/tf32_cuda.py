"""TF32 on an Ampere+ GPU: float32 matmuls on tensor cores, with about fp16-like input precision."""

# --8<-- [start:demo]
import torch

a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
exact = a.double() @ b.double()


def max_error():
    return ((a @ b).double() - exact).abs().max().item()


ieee_error = max_error()  # "highest", the default: full float32 products
# inputs rounded to TF32's 10 mantissa bits, float32 accumulation
torch.set_float32_matmul_precision("high")
tf32_error = max_error()
torch.set_float32_matmul_precision("highest")
# Ampere (sm80) or newer
has_tf32 = torch.cuda.get_device_capability() >= (8, 0)
# the default, True, counts emulation
hardware_bf16 = torch.cuda.is_bf16_supported(including_emulation=False)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.get_float32_matmul_precision() == "highest"
    assert ieee_error < 1e-2  # float32 with float32 accumulation
    if has_tf32:
        assert tf32_error > 10 * ieee_error  # TF32 trades precision for tensor-core throughput
        assert hardware_bf16
    else:  # pre-Ampere (T4, V100): "high" changes nothing, and bf16 is emulated, not native
        assert tf32_error < 2 * ieee_error + 1e-6
        assert not hardware_bf16 and torch.cuda.is_bf16_supported()


if __name__ == "__main__":
    _check()
