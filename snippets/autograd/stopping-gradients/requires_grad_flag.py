"""requires_grad propagates only while grad mode is on, and only floating-point or complex tensors can have it."""

# --8<-- [start:demo]
import torch
from torch import nn

a = torch.ones(2, requires_grad=True)
b = torch.ones(2)  # data: requires_grad=False by default
print((a + b).requires_grad)  # any tracked input makes the output tracked...
# > True
with torch.no_grad():
    print((a + b).requires_grad)  # ...unless grad mode is off
# > False
try:
    torch.tensor([1, 2]).requires_grad_()
except RuntimeError as err:
    print(err)
# > only Tensors of floating point dtype can require gradients
print(a.argmax().requires_grad)  # integer results are never tracked
# > False
bn = nn.BatchNorm1d(2)
# parameter vs buffer
print(bn.weight.requires_grad, bn.running_mean.requires_grad)
# > True False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The propagation rule holds in grad mode, including for a non-tracked leaf mixed with a tracked one.
    assert (a * b).requires_grad and (a + b).grad_fn is not None
    assert not (b * 2).requires_grad
    # Suspended under no_grad and inference_mode, restored after.
    with torch.inference_mode():
        assert not (a + b).requires_grad
    assert (a + b).requires_grad
    # The dtype rule: integer and bool tensors cannot require grad, whichever way you ask; complex can.
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        torch.ones(2, dtype=torch.long, requires_grad=True)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        torch.tensor([True]).requires_grad_()
    assert torch.ones(2, dtype=torch.complex64, requires_grad=True).requires_grad
    assert torch.ones(2, dtype=torch.float16, requires_grad=True).requires_grad
    # Integer-valued outputs (argmax, comparisons, casts to int) drop out of the graph.
    assert not (a > 0).requires_grad and not a.long().requires_grad
    # Parameters require grad by default, buffers do not, and a plain tensor attribute is neither.
    assert [name for name, _ in bn.named_parameters()] == ["weight", "bias"]
    assert {name for name, _ in bn.named_buffers()} == {"running_mean", "running_var", "num_batches_tracked"}
    assert not bn.running_var.requires_grad and bn.num_batches_tracked.dtype == torch.int64
    assert nn.Parameter(torch.ones(1)).requires_grad
    assert not nn.Parameter(torch.ones(1), requires_grad=False).requires_grad


if __name__ == "__main__":
    _check()
