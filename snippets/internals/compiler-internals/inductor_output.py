"""Inductor's generated code, read by a test: one fused C++ kernel for the pointwise ops and the sum, an extern mm."""

# --8<-- [start:demo]
import torch
from torch._inductor.utils import run_and_get_code


def f(x, w):
    return torch.relu(x @ w * 2 + 1).sum(-1)


x, w = torch.randn(8, 16), torch.randn(16, 4)
out, (code,) = run_and_get_code(torch.compile(f), x, w)
calls = [line.strip() for line in code.splitlines()
         if line.strip().startswith(("extern_kernels.", "cpp_fused_"))
         and line.endswith(")")]  # the wrapper's calls, in order
print(*calls, sep="\n")
# > extern_kernels.mm(arg0_1, arg1_1, out=buf0)
# > cpp_fused_add_mul_relu_sum_0(buf0, buf1)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.testing.assert_close(out, f(x, w))
    assert "cpp_fused_add_mul_relu_sum_0 = async_compile.cpp_pybinding(" in code  # C++ source, compiled
    assert code.count("extern_kernels.mm(") == 1
    kernels = {name for name in code.split() if name.startswith("cpp_fused_")}
    assert {k.split("(")[0] for k in kernels} == {"cpp_fused_add_mul_relu_sum_0"}


if __name__ == "__main__":
    _check()
