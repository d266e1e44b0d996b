"""Rapid-fire answers best given as code: constructors, cat vs stack, squeeze, transposes, item vs detach vs tolist."""

# --8<-- [start:constructors]
import torch

# legacy constructor: 3 uninitialised floats
print(torch.Tensor(3).shape, torch.Tensor(3).dtype)
# > torch.Size([3]) torch.float32
# the value 3, as a 0-d int64 scalar
print(torch.tensor(3).shape, torch.tensor(3).dtype)
# > torch.Size([]) torch.int64
# --8<-- [end:constructors]

# --8<-- [start:stack_cat]
import torch

a, b = torch.zeros(2, 3), torch.ones(2, 3)
# joins along an existing dim
print(torch.cat([a, b]).shape, torch.cat([a, b], dim=1).shape)
# > torch.Size([4, 3]) torch.Size([2, 6])
# adds a new dim: the inputs must have equal shapes
print(torch.stack([a, b]).shape)
# > torch.Size([2, 2, 3])
# --8<-- [end:stack_cat]

# --8<-- [start:squeeze]
import torch

logits = torch.zeros(1, 1)  # a batch of one, one output unit
# squeeze() dropped the batch dim too
print(logits.squeeze().shape, logits.squeeze(1).shape)
# > torch.Size([]) torch.Size([1])
# --8<-- [end:squeeze]

# --8<-- [start:transpose]
import torch

x = torch.zeros(2, 3, 4)  # a batch of two 3x4 matrices
print(x.mT.shape, x.transpose(-2, -1).shape, x.permute(2, 1, 0).shape)
# > torch.Size([2, 4, 3]) torch.Size([2, 4, 3]) torch.Size([4, 3, 2])
# --8<-- [end:transpose]

# --8<-- [start:item_detach_tolist]
import torch

t = torch.tensor([1.5, 2.5], requires_grad=True)
# Python objects: they leave torch entirely
print(type(t.sum().item()).__name__, t.tolist())
# > float [1.5, 2.5]
d = t.detach()  # still a tensor, same memory, no graph
print(d.requires_grad, d.data_ptr() == t.data_ptr())
# > False True
# --8<-- [end:item_detach_tolist]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # torch.Tensor(3) is a shape; torch.tensor(3) is data. Lists behave like data in both.
    assert torch.Tensor(3).shape == (3,) and torch.tensor(3).shape == ()
    assert torch.Tensor([3]).tolist() == [3.0] and torch.tensor([3]).dtype == torch.int64

    # cat needs matching sizes except along dim; stack needs identical shapes.
    assert torch.equal(torch.stack([a, b]), torch.cat([a.unsqueeze(0), b.unsqueeze(0)]))
    assert torch.cat([torch.zeros(2, 3), torch.zeros(5, 3)]).shape == (7, 3)
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        torch.stack([torch.zeros(2), torch.zeros(3)])

    # squeeze() removes every size-1 dim: with a batch of one, the batch dim disappears too, and a
    # loss against (1,) targets then broadcasts or fails. Name the dim.
    assert torch.zeros(8, 1).squeeze().shape == (8,) and torch.zeros(1, 1).squeeze().shape == ()
    assert torch.zeros(1, 1).squeeze(-1).shape == (1,)
    assert torch.zeros(1, 10).squeeze().shape == (10,)  # (batch, classes) with batch 1: now looks like (classes,)

    # x.T on a tensor that is not 2-D reverses every dim, and is deprecated (a UserWarning in 2.14).
    with pytest.warns(UserWarning, match="use of `x.T` on tensors of dimension other than 2"):
        reversed_dims = x.T
    assert reversed_dims.shape == (4, 3, 2)
    assert torch.equal(x.mT, x.transpose(-2, -1))

    # item() and tolist() give Python numbers (on a GPU they wait for the device); detach() stays a tensor.
    assert isinstance(t.sum().item(), float) and isinstance(t.tolist()[0], float)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        t.item()
    assert d.data_ptr() == t.data_ptr() and not d.requires_grad and d.grad_fn is None


if __name__ == "__main__":
    _check()
