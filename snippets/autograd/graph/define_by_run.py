"""Define-by-run: every forward pass records a new graph, so a Python `if` simply records the branch that ran."""

# --8<-- [start:demo]
import torch

w = torch.randn(5, 3, requires_grad=True)  # leaves: created by you, tracked
b = torch.randn(3, requires_grad=True)
x = torch.ones(5)  # data: not tracked

z = x @ w + b  # the graph is recorded while this line runs
loss = z.sum()
print(type(loss.grad_fn).__name__, w.grad)
# > SumBackward0 None
loss.backward()  # walk the recorded graph backwards
print(w.grad.shape, b.grad)
# > torch.Size([5, 3]) tensor([1., 1., 1.])
# --8<-- [end:demo]

demo_w, demo_b, demo_x, demo_z = w, b, x, z  # kept for the checks

# --8<-- [start:branch]
import torch


def forward(x, w):
    if x.sum() > 0:  # ordinary Python, on a tensor's value
        return (x * w).sum()
    return (x - w).sum()


w = torch.tensor([2.0, 3.0], requires_grad=True)
for x in (torch.tensor([1.0, 1.0]), torch.tensor([-1.0, -1.0])):
    loss = forward(x, w)
    loss.backward()
    print(type(loss.grad_fn.next_functions[0][0]).__name__, w.grad)
    w.grad = None
# > MulBackward0 tensor([1., 1.])
# > SubBackward0 tensor([-1., -1.])
# --8<-- [end:branch]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # d(sum(x @ w + b))/dw[i, j] = x[i] = 1 and d/db = 1, whatever the random values of w and b.
    assert torch.equal(demo_w.grad, torch.ones(5, 3))
    assert torch.equal(demo_b.grad, torch.ones(3))
    assert demo_x.grad is None and not demo_x.requires_grad  # data gets no gradient
    assert demo_w.is_leaf and demo_b.is_leaf and not demo_z.is_leaf

    # Each call builds a fresh graph: two calls give two distinct root nodes, one per branch.
    first = forward(torch.tensor([1.0, 1.0]), w)
    second = forward(torch.tensor([1.0, 1.0]), w)
    assert first.grad_fn is not second.grad_fn
    other = forward(torch.tensor([-1.0, -1.0]), w)
    assert type(other.grad_fn.next_functions[0][0]).__name__ == "SubBackward0"
    # The gradient follows the branch that ran: x for the product, -1 for the difference.
    (g_mul,) = torch.autograd.grad(first, w)
    (g_sub,) = torch.autograd.grad(other, w)
    assert g_mul.tolist() == [1.0, 1.0] and g_sub.tolist() == [-1.0, -1.0]


if __name__ == "__main__":
    _check()
