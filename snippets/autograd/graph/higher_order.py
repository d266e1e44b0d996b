"""retain_graph keeps the saved tensors for a second backward; create_graph records the backward itself."""

# --8<-- [start:retain]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x.exp()  # saves its result for backward
y.backward()  # ...and frees it here
try:
    y.backward()
except RuntimeError as err:
    print(str(err).split(" (")[0])
# > Trying to backward through the graph a second time
z = x.exp()
z.backward(retain_graph=True)  # keep the saved tensors
z.backward()  # works, and adds to x.grad again
print(torch.allclose(x.grad, 3 * x.exp()))  # one e^x from y, two from z
# > True
# --8<-- [end:retain]

x_retain = x  # kept for the checks

# --8<-- [start:second_order]
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3
# 3x^2, itself part of a graph
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)  # 6x
print(dy_dx.item(), d2y_dx2.item(), dy_dx.grad_fn is not None)
# > 27.0 18.0 True
# --8<-- [end:second_order]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Without retain_graph the second backward raises; the message names the fix.
    second = torch.tensor(2.0, requires_grad=True)
    out = second.exp()
    out.backward()
    with pytest.raises(RuntimeError, match=r"second time.*Specify retain_graph=True"):
        out.backward()
    # Without create_graph the first derivative is a constant: it cannot be differentiated again.
    t = torch.tensor(2.0, requires_grad=True)
    (first,) = torch.autograd.grad(t**3, t)
    assert first.item() == 12.0 and first.grad_fn is None and not first.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        torch.autograd.grad(first, t)
    # create_graph implies retain_graph: the original graph survives the first pass.
    r = torch.tensor(2.0, requires_grad=True)
    ry = r.exp()
    torch.autograd.grad(ry, r, create_graph=True)
    (again,) = torch.autograd.grad(ry, r)  # no "second time" error
    torch.testing.assert_close(again, r.exp())
    # create_graph gives the true second derivative: 3x^2 = 27 and 6x = 18 at x = 3.
    assert (dy_dx.item(), d2y_dx2.item()) == (27.0, 18.0)
    # A gradient penalty (WGAN-GP style) is the same trick: the penalty on a gradient is trained through it.
    # With s = w . inp, the input gradient is 2 s w, the penalty 4 s^2 |w|^2, and d/dw = 8 s |w|^2 inp + 8 s^2 w.
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    inp = torch.tensor([0.5, 0.75], requires_grad=True)
    (g_inp,) = torch.autograd.grad((w * inp).sum() ** 2, inp, create_graph=True)
    (g_inp.norm() ** 2).backward()
    torch.testing.assert_close(w.grad, torch.tensor([-12.0, -46.0]))
    # Hessian-vector product via double backward matches the explicit Hessian.
    from torch.autograd.functional import hessian

    def f(v):
        return (v**3).sum() + v[0] * v[1]

    point = torch.tensor([1.0, 2.0], requires_grad=True)
    direction = torch.tensor([1.0, -1.0])
    (grad_f,) = torch.autograd.grad(f(point), point, create_graph=True)
    (hvp,) = torch.autograd.grad(grad_f @ direction, point)
    torch.testing.assert_close(hvp, hessian(f, point.detach()) @ direction)
    # The usual real cause of the "second time" error: a tensor carried across iterations still holds the
    # previous step's graph. Detaching it at the iteration boundary fixes it; retain_graph only hides it.
    cell = torch.nn.RNNCell(2, 2)
    hidden = torch.zeros(1, 2)
    hidden = cell(torch.ones(1, 2), hidden)
    hidden.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        cell(torch.ones(1, 2), hidden).sum().backward()
    hidden = cell(torch.ones(1, 2), hidden.detach())
    hidden.sum().backward()
    # retain_graph made the second backward possible and accumulated: 2 * e^2 + e^2 from the first y.
    torch.testing.assert_close(x_retain.grad, 3 * x_retain.exp())


if __name__ == "__main__":
    _check()
