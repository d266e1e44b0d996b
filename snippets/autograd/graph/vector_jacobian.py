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
(vjp,) = torch.autograd.grad(y, x, grad_outputs=torch.ones(3))  # returns it; .grad untouched
print(vjp, x.grad)
# > tensor([2., 4., 6.]) None
# --8<-- [end:grad]


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
    assert vjp.tolist() == [2.0, 4.0, 6.0] and x.grad is None


if __name__ == "__main__":
    _check()
