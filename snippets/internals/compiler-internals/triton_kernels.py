"""Triton kernels verified on a CPU through Triton's interpreter, and two ways to make torch see them."""

# runs in its own process: TRITON_INTERPRET=1 must be set before anything in the process imports triton

# --8<-- [start:kernels]
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 16),)  # one program per block
    add_kernel[grid](x, y, out, x.numel(), BLOCK=16)
    return out


@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


x, y = torch.randn(37), torch.randn(37)  # not a multiple of 16
print(torch.equal(add(x, y), x + y))
# > True
rows = torch.randn(4, 10)
out = torch.empty_like(rows)
softmax_kernel[(4,)](rows, out, 10, BLOCK=16)  # BLOCK: a power of two
print(torch.allclose(out, torch.softmax(rows, dim=1)))
# > True
# --8<-- [end:kernels]

# --8<-- [start:ops]
from torch.library import custom_op, triton_op, wrap_triton


@triton_op("m11::tadd", mutates_args=())
def tadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 16),)
    wrap_triton(add_kernel)[grid](x, y, out, x.numel(), BLOCK=16)
    return out


@custom_op("m11::cadd", mutates_args=())
def cadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return add(x, y)  # opaque to the compiler


@cadd.register_fake
def _(x, y):
    return torch.empty_like(x)


print(torch.equal(tadd(x, y), x + y), torch.ops.m11.tadd.default._schema)
# > True m11::tadd(Tensor x, Tensor y) -> Tensor
report = torch.library.opcheck(cadd, (x, y))  # raises on a failure
print(len(report), set(report.values()))
# > 4 {'SUCCESS'}
compiled = torch.compile(lambda a, b: cadd(a, b) * 2, backend="aot_eager",
                         fullgraph=True)
print(torch.equal(compiled(x, y), (x + y) * 2))
# > True
# --8<-- [end:ops]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # a 16x16 tl.dot in the interpreter
    @triton.jit
    def dot_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        a = tl.load(a_ptr + r[:, None] * N + r[None, :])
        b = tl.load(b_ptr + r[:, None] * N + r[None, :])
        tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))

    a, b, c = torch.randn(16, 16), torch.randn(16, 16), torch.empty(16, 16)
    dot_kernel[(1,)](a, b, c, N=16)
    torch.testing.assert_close(c, a @ b, atol=1e-4, rtol=1e-4)
    assert os.environ["TRITON_INTERPRET"] == "1"

    import pytest

    # Under the interpreter the triton_op does not compile: the tracer gets the raw kernel, which needs data.
    with pytest.raises(Exception, match="Cannot access data pointer"):
        torch.compile(lambda a, b: tadd(a, b) * 2, backend="aot_eager", fullgraph=True)(x, y)

    # The interpreter does not flag an unmasked load past the end of the tensor.
    @triton.jit
    def unmasked_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))

    big_out = torch.empty(16)
    unmasked_kernel[(1,)](torch.randn(10), big_out, BLOCK=16)  # reads 6 elements past the end


if __name__ == "__main__":
    _check()
