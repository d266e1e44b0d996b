"""GPU lane: Inductor sees into a triton_op (its kernel is in the output code); a custom_op stays an opaque call."""

# runs in its own process: it registers torch.library ops, and run_and_get_code resets Dynamo

# --8<-- [start:demo]
import torch
import triton
import triton.language as tl
from torch._inductor.utils import run_and_get_code
from torch.library import custom_op, triton_op, wrap_triton


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton_op("m11gpu::tadd", mutates_args=())
def tadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 256),)
    wrap_triton(add_kernel)[grid](x, y, out, x.numel(), BLOCK=256)
    return out


@custom_op("m11gpu::cadd", mutates_args=())
def cadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 256),)
    add_kernel[grid](x, y, out, x.numel(), BLOCK=256)  # hidden inside
    return out


@cadd.register_fake
def _(x, y):
    return torch.empty_like(x)


def code_lines(fn, *args):  # Inductor's output code, comments dropped
    out, codes = run_and_get_code(torch.compile(fn, fullgraph=True), *args)
    lines = "\n".join(codes).splitlines()
    return out, "\n".join(s for s in lines if not s.lstrip().startswith("#"))


x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
out_t, code_t = code_lines(lambda a, b: tadd(a, b).relu() * 2, x, y)
out_c, code_c = code_lines(lambda a, b: cadd(a, b).relu() * 2, x, y)
print(torch.equal(out_t, (x + y).relu() * 2),
      torch.equal(out_c, (x + y).relu() * 2))
# > True True
print("add_kernel" in code_t, "torch.ops.m11gpu.tadd" in code_t)
# > True False
print("add_kernel" in code_c, "torch.ops.m11gpu.cadd" in code_c)
# > False True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import sys

    # Eager calls of both ops agree with torch (and with each other), on a size that is not a multiple of BLOCK.
    assert x.numel() % 256 != 0
    assert torch.equal(tadd(x, y), x + y) and torch.equal(cadd(x, y), x + y)
    # The custom_op is one extern call in the wrapper; the triton_op's kernel is compiled by Inductor.
    assert "torch.ops.m11gpu.cadd.default(" in code_c, code_c
    assert "torch.ops.m11gpu" not in code_t, code_t
    print(f"triton_op output code:\n{code_t}", file=sys.stderr)


if __name__ == "__main__":
    _check()
