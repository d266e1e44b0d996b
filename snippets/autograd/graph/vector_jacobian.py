"""backward() needs a scalar, or a `gradient=` vector v, and then computes the vector-Jacobian product v^T J."""

# --8<-- [start:demo]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # a vector: its Jacobian is diag(2x)
try:
    y.backward()
except RuntimeError as err:
    print(err)
# > grad can be implicitly created only for scalar outputs
v = torch.tensor([1.0, 0.1, 0.01])
y.backward(gradient=v)  # computes v^T J, never J itself
print(x.grad)
# > tensor([2.0000, 0.4000, 0.0600])
# --8<-- [end:demo]

demo_x, demo_v = x, v  # kept for the checks

# --8<-- [start:grad]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
# returns the product and leaves .grad untouched
(vjp,) = torch.autograd.grad(y, x, grad_outputs=torch.ones(3))
print(vjp, x.grad)
# > tensor([2., 4., 6.]) None
# --8<-- [end:grad]

grad_x = x  # kept for the checks

# --8<-- [start:flops]
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
x = torch.randn(32, 64)  # 32 samples; the input needs no gradient
with FlopCounterMode(display=False) as fwd:
    loss = model(x).sum()
with FlopCounterMode(display=False) as bwd:
    loss.backward()
forward, backward = fwd.get_total_flops(), bwd.get_total_flops()
print(forward, backward)
# > 606208 688128
n = sum(p.numel() for p in model.parameters() if p.dim() == 2)
print(forward == 2 * 32 * n)  # one multiply-add per weight per sample
# > True
# backward: dL/dW and dL/dx per layer, minus the first layer's dL/dx
print(backward == 2 * forward - 2 * 32 * 64 * 128)
# > True
# --8<-- [end:flops]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch.autograd.functional import jacobian

    # gradient=v gives v^T J: the same numbers as building the full Jacobian and multiplying.
    full = jacobian(lambda t: t**2, torch.tensor([1.0, 2.0, 3.0]))
    assert torch.equal(full, torch.diag(torch.tensor([2.0, 4.0, 6.0])))
    torch.testing.assert_close(demo_x.grad, demo_v @ full)
    # With a dense Jacobian (y = A x, J = A) the product is A^T v, a vector the size of x.
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x2 = torch.ones(3, requires_grad=True)
    (a @ x2).backward(gradient=torch.tensor([1.0, -1.0]))
    torch.testing.assert_close(x2.grad, a.T @ torch.tensor([1.0, -1.0]))
    # It equals backward of the scalar (y * v).sum(): a VJP is the gradient of a weighted sum.
    x3 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x3**2 * demo_v).sum().backward()
    torch.testing.assert_close(x3.grad, demo_v @ full)
    # A one-element tensor counts as a scalar: the implicit gradient is 1.
    x4 = torch.tensor([3.0], requires_grad=True)
    (x4**2).backward()
    assert x4.grad.tolist() == [6.0]
    # gradient= must match y's shape.
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (demo_x**2).backward(gradient=torch.ones(2))
    # A per-sample loss vector with gradient=ones sums the losses: N times the gradient of the mean.
    weight = torch.ones(3, requires_grad=True)
    samples = torch.randn(5, 3)
    per_sample = (samples @ weight - 1.0) ** 2
    per_sample.backward(gradient=torch.ones_like(per_sample))
    (mean_grad,) = torch.autograd.grad(((samples @ weight - 1.0) ** 2).mean(), weight)
    torch.testing.assert_close(weight.grad, 5 * mean_grad)
    # autograd.grad returns the VJP and leaves .grad alone; the ones vector gives the grad of y.sum().
    assert vjp.tolist() == [2.0, 4.0, 6.0] and grad_x.grad is None

    # Backward costs two matmuls per forward matmul (dL/dW = x^T g and dL/dx = g W^T), so it is
    # 2x the forward and a training step 3x (6N vs 2N FLOPs per sample). The old claim, "training
    # costs about one extra forward pass" (a step of 2x the forward), fails these asserts.
    def _flops(fn):
        with FlopCounterMode(display=False) as counter:
            fn()
        return counter.get_total_flops()

    deep = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    weights = sum(p.numel() for p in deep.parameters() if p.dim() == 2)
    inputs = torch.randn(32, 64, requires_grad=True)  # an input that needs dL/dx: no caveat
    out = []
    fwd_flops = _flops(lambda: out.append(deep(inputs).sum()))
    bwd_flops = _flops(lambda: out[0].backward())
    assert fwd_flops == 2 * 32 * weights  # 2N per sample
    assert bwd_flops == 2 * fwd_flops  # 4N per sample, exactly
    assert fwd_flops + bwd_flops == 3 * fwd_flops  # a step is 6N, not ~2x a forward
    assert (fwd_flops + bwd_flops) / fwd_flops != pytest.approx(2.0, rel=0.25)
    # The caveat: an input that needs no grad skips the first layer's dL/dx, one layer's matmul.
    plain = torch.randn(32, 64)
    out.clear()
    fwd_plain = _flops(lambda: out.append(deep(plain).sum()))
    bwd_plain = _flops(lambda: out[0].backward())
    assert fwd_plain == fwd_flops and bwd_plain == bwd_flops - 2 * 32 * 64 * 128
    # The demo's numbers follow the same formula.
    assert forward == 2 * 32 * (64 * 128 + 128 * 10) and backward == 2 * forward - 2 * 32 * 64 * 128


if __name__ == "__main__":
    _check()
