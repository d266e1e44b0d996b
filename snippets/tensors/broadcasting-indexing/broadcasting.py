"""Broadcasting aligns shapes from the right; an in-place op cannot broadcast its own destination."""

# --8<-- [start:rules]
import torch

a = torch.ones(3, 1)
b = torch.ones(1, 4)
print((a + b).shape)  # (3, 1) and (1, 4): every size-1 dim stretches
# > torch.Size([3, 4])
print(torch.broadcast_shapes((4,), (3, 1)))
# > torch.Size([3, 4])
print(torch.broadcast_shapes((5, 1, 4), (3, 1)))
# > torch.Size([5, 3, 4])
try:
    a.add_(b)  # the result is (3, 4), but a only has room for (3, 1)
except RuntimeError as err:
    print(err)
# > output with shape [3, 1] doesn't match the broadcast shape [3, 4]
c = torch.zeros(3, 4)
c.add_(b)  # fine: only the other operand is broadcast
a = a + b  # fine: a new (3, 4) tensor, bound to the old name
print(c.shape, a.shape)
# > torch.Size([3, 4]) torch.Size([3, 4])
# --8<-- [end:rules]

# --8<-- [start:silent]
import torch

pred = torch.tensor([[1.0], [2.0], [3.0]])  # a model's output, shape (3, 1)
target = torch.tensor([1.0, 2.0, 3.0])  # the labels, shape (3,)
print((pred - target).shape)  # every prediction minus every label
# > torch.Size([3, 3])
print(((pred - target) ** 2).mean().item())  # the mean over 9 pairs
# > 1.3333333730697632
print(((pred.squeeze(1) - target) ** 2).mean().item())
# > 0.0
# --8<-- [end:silent]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    import torch.nn.functional as F

    # Align from the right; a missing leading dim counts as 1; each pair must be equal or contain a 1.
    assert torch.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
    assert torch.broadcast_shapes((2, 1, 3), (4, 1)) == (2, 4, 3)
    assert (torch.zeros(4) + torch.zeros(3, 1)).shape == (3, 4)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(2\)"):
        torch.zeros(2, 3) + torch.zeros(3, 2)
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 2"):
        torch.broadcast_shapes((2, 3), (3, 2))
    # A size-0 dim broadcasts against 1 but not against any other size.
    assert (torch.zeros(0, 1) + torch.zeros(1, 4)).shape == (0, 4)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(0\) must match the size of tensor b \(4\)"):
        torch.zeros(0) + torch.zeros(4)

    # The destination of an in-place op keeps its shape: `a.add_(b)` and `a += b` both refuse.
    dst = torch.ones(3, 1)
    message = r"output with shape \[3, 1\] doesn't match the broadcast shape \[3, 4\]"
    with pytest.raises(RuntimeError, match=message):
        dst.add_(torch.ones(1, 4))
    with pytest.raises(RuntimeError, match=message):
        dst += torch.ones(1, 4)
    assert dst.shape == (3, 1) and torch.equal(dst, torch.ones(3, 1))  # untouched by the failed ops
    assert torch.equal(c, torch.ones(3, 4))  # the other operand may broadcast
    assert torch.equal(a, torch.full((3, 4), 2.0))  # `a = a + b` rebound the name to a new tensor
    # out= is the odd one: a wrong-sized out tensor is resized, with a UserWarning (not an error, yet).
    out = torch.empty(3, 1)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        torch.add(torch.ones(3, 1), torch.ones(1, 4), out=out)
    assert out.shape == (3, 4)

    # Broadcasting is an implicit expand: stride 0, no copy of the small operand.
    stretched = torch.broadcast_to(b, (3, 4))
    assert stretched.stride() == (0, 1) and stretched.data_ptr() == b.data_ptr()
    # In backward, a broadcast operand's gradient is summed over the dims it was stretched along.
    x = torch.randn(3, 4)
    bias = torch.zeros(4, requires_grad=True)
    (x + bias).sum().backward()
    assert bias.grad.shape == (4,) and torch.equal(bias.grad, torch.full((4,), 3.0))

    # The silent bug: (N, 1) against (N,) gives (N, N). A hand-written loss says nothing...
    assert (pred - target).shape == (3, 3)
    assert ((pred - target) ** 2).mean().item() == pytest.approx(12 / 9)
    # ...and F.mse_loss only warns, then returns the same wrong number.
    with pytest.warns(UserWarning, match="Using a target size"):
        wrong = F.mse_loss(pred, target)
    assert wrong.item() == pytest.approx(12 / 9)
    assert F.mse_loss(pred.squeeze(1), target).item() == 0.0


if __name__ == "__main__":
    _check()
