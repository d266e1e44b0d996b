"""A custom autograd.Function in the forward + setup_context + backward style, verified with gradcheck in float64."""

# --8<-- [start:demo]
import torch


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):  # no ctx: plain computation
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):  # decide what backward needs
        (x,) = inputs
        ctx.save_for_backward(x)  # only x: sigmoid is recomputed in backward

    @staticmethod
    def backward(ctx, grad_output):  # one gradient per forward input
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * s * (1 + x * (1 - s))


x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
y = SiLU.apply(x)  # always .apply, never SiLU()(x)
y.sum().backward()
print(type(y.grad_fn).__name__, x.grad)
# > SiLUBackward tensor([0.0723, 0.5000, 1.0908])
# --8<-- [end:demo]

# --8<-- [start:test]
from torch.autograd import gradcheck, gradgradcheck

# float64: finite differences need it
x64 = torch.randn(6, dtype=torch.float64, requires_grad=True)
print(gradcheck(SiLU.apply, (x64,)), gradgradcheck(SiLU.apply, (x64,)))
# > True True
# --8<-- [end:test]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    import pytest
    from torch.autograd.gradcheck import GradcheckError

    # The gradient matches the built-in silu's.
    reference = x.detach().clone().requires_grad_()
    torch.nn.functional.silu(reference).sum().backward()
    torch.testing.assert_close(x.grad, reference.grad)
    torch.testing.assert_close(y.detach(), torch.nn.functional.silu(x.detach()))

    # gradcheck catches a wrong backward (here: the derivative of sigmoid(x) * x forgetting the product rule).
    class Wrong(SiLU):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * torch.sigmoid(x)

    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (x64,))
    # In float32 gradcheck warns, and even the correct backward fails its tolerances.
    x32 = torch.randn(6, requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision floating point or complex"):
        assert not gradcheck(SiLU.apply, (x32,), raise_exception=False)
    # double backward works because backward is written with differentiable torch ops.
    (g,) = torch.autograd.grad(SiLU.apply(x64).sum(), x64, create_graph=True)
    assert g.grad_fn is not None

    # Instantiating the Function is the legacy style: it raises, with a DeprecationWarning first.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward method is deprecated"):
            SiLU()(x)
    with pytest.warns(DeprecationWarning, match="should not be instantiated"), pytest.raises(RuntimeError):
        SiLU()(x)
    # setup_context makes the Function usable with torch.func transforms, but vmap still needs a rule.
    with pytest.raises(RuntimeError, match="does not have vmap support"):
        torch.func.vmap(SiLU.apply)(torch.randn(3, 4))

    class BatchedSiLU(SiLU):
        generate_vmap_rule = True

    torch.testing.assert_close(torch.func.vmap(BatchedSiLU.apply)(x64.detach()), torch.nn.functional.silu(x64.detach()))
    torch.testing.assert_close(torch.func.grad(lambda t: SiLU.apply(t).sum())(x64.detach()), g.detach())

    # The combined forward(ctx, ...) style still works on its own, but not under torch.func transforms.
    class Combined(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * torch.sigmoid(x)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            s = torch.sigmoid(x)
            return grad_output * s * (1 + x * (1 - s))

    assert gradcheck(Combined.apply, (x64,))
    with pytest.raises(RuntimeError, match="it must override the setup_context staticmethod"):
        torch.func.grad(lambda t: Combined.apply(t).sum())(x64.detach())

    # save_for_backward is checked for in-place changes; a tensor kept as a ctx attribute is not, and
    # backward silently uses the modified value.
    class AttrSquare(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x**2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.x = inputs[0]

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2 * ctx.x

    class SavedSquare(AttrSquare):
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x

    a = torch.tensor([3.0], requires_grad=True)
    b = a * 1
    out_attr = AttrSquare.apply(b)
    b.mul_(10)
    out_attr.sum().backward()
    assert a.grad.tolist() == [60.0]  # 2 * 30: the overwritten value, no error
    clean = torch.tensor([3.0], requires_grad=True)
    SavedSquare.apply(clean).sum().backward()
    assert clean.grad.tolist() == [6.0]  # without the in-place change it is the true 2x
    c = a * 1
    out_saved = SavedSquare.apply(c)
    c.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out_saved.sum().backward()

    # once_differentiable: a backward that is not itself differentiable; double backward through it raises.
    from torch.autograd.function import once_differentiable

    class Opaque(SavedSquare):
        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x

    z = torch.tensor(3.0, requires_grad=True)
    (dz,) = torch.autograd.grad(Opaque.apply(z), z, create_graph=True)
    assert dz.item() == 6.0 and dz.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        torch.autograd.grad(dz, z)

    # Dynamo traces the Function: it compiles with fullgraph=True, and the gradient is unchanged.
    compiled = torch.compile(lambda t: SiLU.apply(t).sum(), backend="eager", fullgraph=True)
    traced_in = x64.detach().clone().requires_grad_()
    compiled(traced_in).backward()
    torch.testing.assert_close(traced_in.grad, g.detach())

    # ctx.needs_input_grad tells backward which gradients are wanted; mark_non_differentiable flags
    # integer outputs, which then never require grad.
    seen = []

    class ScaleAndArgmax(torch.autograd.Function):
        @staticmethod
        def forward(x, scale):
            return x * scale, x.argmax()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[1])
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, grad_out, grad_index):
            seen.append(ctx.needs_input_grad)
            (scale,) = ctx.saved_tensors
            return grad_out * scale if ctx.needs_input_grad[0] else None, None

    xs = torch.ones(3, requires_grad=True)
    scaled, index = ScaleAndArgmax.apply(xs, torch.tensor(2.0))
    assert not index.requires_grad
    scaled.sum().backward()
    assert seen == [(True, False)] and xs.grad.tolist() == [2.0, 2.0, 2.0]

    # Memory: SiLU saves one tensor (x); the composite x * sigmoid(x) saves more for its backward.
    def count_saved(fn):
        packed = []
        inp = torch.randn(4, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            fn(inp)
        return len(packed)

    assert count_saved(SiLU.apply) == 1
    # sigmoid saves its output, mul saves both operands: three saves of two distinct tensors.
    assert count_saved(lambda t: t * torch.sigmoid(t)) == 3


if __name__ == "__main__":
    _check()
