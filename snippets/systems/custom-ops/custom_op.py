"""A custom op the compiler can see: custom_op + register_fake + register_autograd, tested with opcheck."""

# --8<-- [start:demo]
import numpy as np
import torch


# type hints are required: they make the schema
@torch.library.custom_op("interview::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    # opaque to Dynamo: NumPy
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


# shapes and dtypes only: how compile and export trace through the op
@np_sin.register_fake
def _(x):
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    return grad_out * x.cos()


# not differentiable without it
np_sin.register_autograd(backward, setup_context=setup_context)

x = torch.randn(5, requires_grad=True)
# raises on the first failure
for test, result in torch.library.opcheck(np_sin, (x,)).items():
    print(test, result)
# > test_schema SUCCESS
# > test_autograd_registration SUCCESS
# > test_faketensor SUCCESS
# > test_aot_dispatch_dynamic SUCCESS

compiled = torch.compile(
    lambda t: np_sin(t) * 2, backend="aot_eager", fullgraph=True
)
compiled(x).sum().backward()
print(torch.allclose(x.grad, 2 * x.detach().cos()))
# > True
# --8<-- [end:demo]

demo_x = x

# --8<-- [start:no_fake]
import torch


@torch.library.custom_op("interview::plain_cos", mutates_args=())
def plain_cos(x: torch.Tensor) -> torch.Tensor:
    return x.cos()  # whatever the body, a custom op is opaque to the compiler


print(plain_cos(torch.zeros(2)))  # eager works: the real kernel runs
# > tensor([1., 1.])
try:  # no register_fake: the compiler cannot know the output's shape
    torch.compile(
        lambda t: plain_cos(t) + 1, backend="aot_eager", fullgraph=True
    )(torch.zeros(2))
except RuntimeError as err:
    print(type(err).__name__, "-", "no fake impl registered" in str(err))
# > TorchRuntimeError - True
try:  # no register_autograd: the op is a wall for gradients
    plain_cos(torch.zeros(2, requires_grad=True)).sum().backward()
except RuntimeError as err:
    where, why = str(err).split(". ")[0].split(" but ")
    print(where)
    print("but", why)
# > Trying to backward through interview.plain_cos.default
# > but no autograd formula was registered
# --8<-- [end:no_fake]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch.testing._internal.optests.generate_tests import OpCheckError

    # The op appears as one node in the compiled graph: capture it with a backend that records.
    graphs = []

    def record(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(lambda t: np_sin(t) + 1, backend=record, fullgraph=True)(
        torch.randn(3)
    )
    targets = [
        str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"
    ]
    assert "interview.np_sin.default" in targets

    # The gradient matches autograd's own sin in float64.
    x64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(np_sin, (x64,))
    torch.testing.assert_close(demo_x.grad, 2 * demo_x.detach().cos())

    with pytest.raises(
        RuntimeError, match="Please use register_autograd to add one"
    ):
        plain_cos(torch.zeros(2, requires_grad=True)).sum().backward()
    # Without a fake the error names the fix.
    with pytest.raises(
        RuntimeError,
        match="There was no fake impl registered .*Please use `plain_cos.register_fake`",
    ):
        torch.compile(
            lambda t: plain_cos(t) * 3, backend="aot_eager", fullgraph=True
        )(torch.zeros(3))

    # Type annotations are mandatory.
    def unannotated(x):
        return x

    with pytest.raises(
        ValueError, match="Parameter x must have a type annotation"
    ):
        torch.library.custom_op("interview::unannotated", mutates_args=())(
            unannotated
        )
    assert unannotated(1) == 1  # as plain Python it is fine

    # A fake with the wrong shape is caught by opcheck.
    @torch.library.custom_op("interview::bad_fake", mutates_args=())
    def bad_fake(x: torch.Tensor) -> torch.Tensor:
        return x.sin()

    @bad_fake.register_fake
    def _(x):
        return x.new_empty(x.shape[0] + 1)

    with pytest.raises(OpCheckError, match="test_faketensor failed"):
        torch.library.opcheck(
            bad_fake, (torch.randn(3),), test_utils=("test_faketensor",)
        )

    # An op that mutates an input must say so in mutates_args.
    @torch.library.custom_op("interview::add_one_", mutates_args=("x",))
    def add_one_(x: torch.Tensor) -> None:
        x.add_(1)

    t = torch.zeros(2)
    add_one_(t)
    assert t.tolist() == [1.0, 1.0]
    assert (
        torch.library.opcheck(
            add_one_, (torch.zeros(2),), test_utils=("test_schema",)
        )["test_schema"]
        == "SUCCESS"
    )

    # The building blocks named in the prose exist on this version.
    assert callable(torch.library.triton_op) and callable(
        torch.library.wrap_triton
    )


if __name__ == "__main__":
    _check()
