"""A real C++ op against the LibTorch stable ABI, built with load_inline in seconds, then made compilable."""

# runs in its own process: a fake, once registered, stays for the process; the page shows the op before it

# --8<-- [start:build]
import torch
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

using torch::stable::Tensor;

Tensor twice(Tensor x) {
  Tensor out = torch::stable::empty_like(x);
  const float* in = x.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = 2 * in[i];
  return out;
}

STABLE_TORCH_LIBRARY(m11stable, m) { m.def("twice(Tensor x) -> Tensor"); }
STABLE_TORCH_LIBRARY_IMPL(m11stable, CPU, m) {
  m.impl("twice", TORCH_BOX(&twice));
}
"""
load_inline(
    name="m11stable",
    cpp_sources=source,
    is_python_module=False,  # registers ops; no pybind module
    no_implicit_headers=True,  # no torch/extension.h
    extra_cflags=["-DTORCH_TARGET_VERSION=0x020a000000000000"],  # 2.10+
)
x = torch.arange(4.0)
print(torch.ops.m11stable.twice(x))
# > tensor([0., 2., 4., 6.])
# --8<-- [end:build]

# --8<-- [start:fake]
try:  # a CPU kernel only: no Meta kernel, no fake
    torch.ops.m11stable.twice(torch.empty(4, device="meta"))
except NotImplementedError as err:
    print("no fake impl or Meta kernel registered" in str(err))
# > True


@torch.library.register_fake("m11stable::twice")
def _(x):
    return torch.empty_like(x)


compiled = torch.compile(lambda t: torch.ops.m11stable.twice(t) + 1,
                         backend="aot_eager", fullgraph=True)
print(compiled(x))
# > tensor([1., 3., 5., 7.])
# --8<-- [end:fake]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import subprocess

    from torch.utils.cpp_extension import include_paths

    y = torch.randn(5)
    torch.testing.assert_close(torch.ops.m11stable.twice(y), 2 * y)
    assert torch.ops.m11stable.twice(torch.empty(3, device="meta")).shape == (3,)
    # Unstable headers refuse to compile once a target version is set: check the preprocessor only.
    flags = [f"-I{path}" for path in include_paths()]
    done = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-DTORCH_TARGET_VERSION=0x020a000000000000", *flags, "-x", "c++", "-"],
        input="#include <ATen/ATen.h>\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "should not be included when either TORCH_STABLE_ONLY or TORCH_TARGET_VERSION is defined" in done.stderr


if __name__ == "__main__":
    _check()
