"""The same SiLU as an autograd.Function (inlined by dispatch and export) and as a custom op (one node)."""

# --8<-- [start:demo]
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class SiLUFn(torch.autograd.Function):  # a graph node, not an operator
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return g * s * (1 + x * (1 - s))


@torch.library.custom_op("m11::silu", mutates_args=())
def silu_op(x: torch.Tensor) -> torch.Tensor:  # an operator
    return x * torch.sigmoid(x)


silu_op.register_fake(lambda x: torch.empty_like(x))
silu_op.register_autograd(
    lambda ctx, g: SiLUFn.backward(ctx, g),
    setup_context=lambda ctx, inputs, output: ctx.save_for_backward(*inputs),
)


class OpLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


x = torch.randn(4, requires_grad=True)
for silu in (SiLUFn.apply, silu_op):
    log = OpLog()
    log.seen = []
    with log:
        y = silu(x)
    print(log.seen, y.grad_fn.name())
# > ['aten.sigmoid.default', 'aten.mul.Tensor'] SiLUFnBackward
# > ['m11.silu.default'] GeneratedBackwardFor_m11_silu_defaultBackward
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch.nn.functional as F

    class Model(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, t):
            return self.fn(t) + 1

    def exported_ops(fn):
        ep = torch.export.export(Model(fn), (torch.randn(4),))
        return [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]

    assert exported_ops(SiLUFn.apply) == ["aten.sigmoid.default", "aten.mul.Tensor", "aten.add.Tensor"]
    assert exported_ops(silu_op) == ["m11.silu.default", "aten.add.Tensor"]
    reference = torch.autograd.grad(F.silu(x).sum(), x)[0]
    for fn in (SiLUFn.apply, silu_op):
        torch.testing.assert_close(torch.autograd.grad(fn(x).sum(), x)[0], reference)
    double = x.detach().double().requires_grad_()
    assert torch.autograd.gradcheck(SiLUFn.apply, (double,))
    torch.library.opcheck(silu_op, (x,))


if __name__ == "__main__":
    _check()
