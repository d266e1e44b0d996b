"""Code answers for the autograd rapid-fire deck: autograd.grad vs backward, and which dtypes can require grad."""

# --8<-- [start:grad_vs_backward]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((w**2).sum(), w)  # returns the gradient
print(g, w.grad)  # .grad untouched
# > tensor([2., 4.]) None
(w**2).sum().backward()  # accumulates into .grad, returns None
print(w.grad)
# > tensor([2., 4.])
# --8<-- [end:grad_vs_backward]

# --8<-- [start:dtypes]
import torch

for dtype in (torch.float16, torch.complex64, torch.int64, torch.bool):
    try:
        torch.zeros(1, dtype=dtype, requires_grad=True)
        print(dtype, "ok")
    except RuntimeError:
        print(dtype, "RuntimeError")
# > torch.float16 ok
# > torch.complex64 ok
# > torch.int64 RuntimeError
# > torch.bool RuntimeError
# --8<-- [end:dtypes]

# --8<-- [start:second_backward]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x.exp()
y.backward(retain_graph=True)  # keep the saved tensors
y.backward()  # second pass works, and accumulates
print(torch.allclose(x.grad, 2 * x.exp()))
# > True
# --8<-- [end:second_backward]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # autograd.grad returned 2w without writing .grad; backward then wrote the same 2w.
    assert g.tolist() == [2.0, 4.0] and w.grad.tolist() == [2.0, 4.0]
    # The dtype rule, with the exact message.
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        torch.zeros(1, dtype=torch.int32, requires_grad=True)
    assert torch.zeros(1, dtype=torch.bfloat16, requires_grad=True).requires_grad
    # Without retain_graph the second backward raises.
    z = torch.tensor(2.0, requires_grad=True)
    out = z.exp()
    out.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()
    torch.testing.assert_close(x.grad, 2 * x.exp())


if __name__ == "__main__":
    _check()
