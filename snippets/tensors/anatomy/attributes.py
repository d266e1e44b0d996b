"""Shape, dtype and device do not fully describe a tensor: layout, strides, offset and autograd state matter too."""

# --8<-- [start:demo]
import torch

a = torch.arange(6.0).reshape(3, 2)  # written row by row
b = torch.arange(6.0).reshape(2, 3).t()  # same shape, stored column by column
print(a.shape == b.shape, a.dtype == b.dtype, a.device == b.device)
# > True True True
print(a.layout, a.stride(), a.storage_offset(), a.is_contiguous())
# > torch.strided (2, 1) 0 True
print(b.layout, b.stride(), b.storage_offset(), b.is_contiguous())
# > torch.strided (1, 3) 0 False
flat = a.view(6)  # fine; the same call on b raises (Q3)

img = torch.zeros(1, 3, 4, 4).to(memory_format=torch.channels_last)
print(img.stride(), img.is_contiguous(memory_format=torch.channels_last))
# > (48, 1, 12, 3) True

w = torch.ones(2, requires_grad=True)
y = w * 2
print(w.is_leaf, w.grad_fn, y.requires_grad, type(y.grad_fn).__name__)
# > True None True MulBackward0
# --8<-- [end:demo]

# --8<-- [start:triage]
import torch
import torch.nn.functional as F


def error_of(op):
    try:
        op()
    except RuntimeError as err:
        return str(err)


layer = torch.nn.Linear(3, 2)
logits = torch.zeros(4, 2)
labels = torch.tensor([0.0, 1.0, 1.0, 0.0])  # class ids loaded as floats
print(error_of(lambda: layer(torch.ones(4, 2))))
# > mat1 and mat2 shapes cannot be multiplied (4x2 and 3x2)
print(error_of(lambda: F.cross_entropy(logits, labels)))
# > expected target dtype to be Long or Byte, but got Float
# meta: a data-less device every machine has
print(error_of(lambda: layer(torch.ones(4, 3, device="meta"))))
# > Tensor on device cpu is not on the expected device meta!
# --8<-- [end:triage]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The "big three" agree, yet one tensor can be viewed flat and the other cannot.
    assert (a.shape, a.dtype, a.device) == (b.shape, b.dtype, b.device)
    assert torch.equal(a, torch.arange(6.0).reshape(3, 2))
    assert flat.data_ptr() == a.data_ptr()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        b.view(6)
    assert a.layout is torch.strided and b.layout is torch.strided
    assert torch.arange(6.0).reshape(2, 3).to_sparse().layout is torch.sparse_coo

    # Memory format is a stride order, not a different shape: channels_last is not "contiguous".
    assert img.shape == (1, 3, 4, 4)
    assert not img.is_contiguous()
    assert img.is_contiguous(memory_format=torch.channels_last)

    # Autograd state is part of a tensor too.
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    assert not y.is_leaf and y.grad_fn is not None

    # The messages name the attribute to check.
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(4x2 and 3x2\)"):
        layer(torch.ones(4, 2))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.cross_entropy(logits, labels)
    assert F.cross_entropy(logits, labels.long()).shape == ()  # the fix: integer class ids
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        layer(torch.ones(4, 3, device="meta"))
    # More messages that point at one attribute.
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(2\)"):
        torch.ones(4, 3) + torch.ones(4, 2)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        torch.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        torch.ones(2, requires_grad=True).add_(1)
    # A 0-d CPU tensor is the main thing allowed to mix with a tensor on another device...
    assert (torch.ones(3, device="meta") + torch.tensor(1.0)).device.type == "meta"
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        torch.ones(3, device="meta") + torch.tensor([1.0])  # ...a 1-element tensor is not 0-d
    # ...but not the only one: advanced indexing takes CPU index tensors (and CPU masks), so "the one
    # exception" was wrong. The result stays on the indexed tensor's device.
    other = torch.arange(5.0, device="meta")
    picked = other[torch.tensor([0, 2])]
    assert picked.device.type == "meta" and picked.shape == (2,)
    assert other[torch.tensor([True, False, True, False, True])].shape == (3,)
    other[torch.tensor([1, 3])] = 1.0  # index_put_ with CPU indices works too

    # The worst shape bug does not raise: (N, 1) vs (N,) broadcasts to (N, N), with only a UserWarning.
    pred, target = torch.tensor([[1.0], [2.0], [3.0], [4.0]]), torch.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.warns(UserWarning, match="Using a target size"):
        wrong = F.mse_loss(pred, target)
    assert wrong.item() == pytest.approx(2.5)  # mean over the 4x4 broadcast, not 0
    assert F.mse_loss(pred.squeeze(1), target).item() == 0.0


if __name__ == "__main__":
    _check()
