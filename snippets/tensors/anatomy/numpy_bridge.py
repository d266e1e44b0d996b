"""torch.tensor always copies; as_tensor and from_numpy share a CPU array's memory; .numpy() shares it back."""

# --8<-- [start:demo]
import numpy as np
import torch

a = np.array([1.0, 2.0, 3.0])  # float64
copied = torch.tensor(a)
shared = torch.as_tensor(a)
also_shared = torch.from_numpy(a)
a[0] = 99.0
print(copied[0].item(), shared[0].item(), also_shared[0].item())
# > 1.0 99.0 99.0
# a dtype change forces a copy
converted = torch.as_tensor(a, dtype=torch.float32)
a[1] = -1.0
print(converted[1].item(), shared[1].item())
# > 2.0 -1.0
# --8<-- [end:demo]

# --8<-- [start:back_to_numpy]
import torch

w = torch.ones(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as err:
    print(str(err).replace(". ", ".\n"))
# > Can't call numpy() on Tensor that requires grad.
# > Use tensor.detach().numpy() instead.
arr = w.detach().numpy()  # no copy: arr and w share memory
arr[0] = 5.0
print(w)
# > tensor([5., 1., 1.], requires_grad=True)
# --8<-- [end:back_to_numpy]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import numpy as np
    import pytest

    # Who shares the array's buffer.
    assert shared.data_ptr() == a.ctypes.data and also_shared.data_ptr() == a.ctypes.data
    assert copied.data_ptr() != a.ctypes.data
    assert converted.data_ptr() != a.ctypes.data and converted.dtype == torch.float32
    assert torch.as_tensor(a, dtype=torch.float64).data_ptr() == a.ctypes.data  # same dtype: still shared
    assert copied.dtype == shared.dtype == also_shared.dtype == torch.float64
    # Sharing works both ways: an in-place torch op is visible in the array.
    also_shared.mul_(2)
    assert a.tolist() == [198.0, -2.0, 6.0]
    # as_tensor on a tensor returns the very same object; torch.tensor(tensor) copies and warns.
    t = torch.ones(2)
    assert torch.as_tensor(t) is t
    with pytest.warns(UserWarning, match=r"To copy construct from a tensor.*detach\(\)\.clone\(\)"):
        t_copy = torch.tensor(t)
    assert t_copy.data_ptr() != t.data_ptr()
    # from_numpy only takes ndarrays, and rejects negative strides; read-only arrays get a warning.
    with pytest.raises(TypeError, match=r"expected np\.ndarray \(got list\)"):
        torch.from_numpy([1.0, 2.0])
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(np.arange(4.0)[::-1])
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        torch.from_numpy(frozen)

    # .numpy() refuses a tensor that requires grad; .detach().numpy() shares memory.
    needs_detach = r"Can't call numpy\(\) on Tensor that requires grad\. Use tensor\.detach\(\)\.numpy\(\)"
    with pytest.raises(RuntimeError, match=needs_detach):
        w.numpy()
    assert arr.ctypes.data == w.data_ptr()
    assert w.tolist() == [5.0, 1.0, 1.0]
    # .cpu() is a no-op on a CPU tensor (same object), so .detach().cpu().numpy() still shares there.
    plain = w.detach()
    assert plain.cpu() is plain and plain.cpu().numpy().ctypes.data == w.data_ptr()
    # A "snapshot" made with .detach().numpy() is an alias: later in-place updates show up in it.
    param = torch.zeros(2, requires_grad=True)
    snapshot = param.detach().numpy()
    with torch.no_grad():
        param.add_(1.0)  # what an optimizer step does
    assert snapshot.tolist() == [1.0, 1.0]
    assert param.detach().numpy().copy().ctypes.data != param.data_ptr()  # .copy() makes a real snapshot
    # A tensor that is not in host memory cannot be viewed as an array.
    with pytest.raises(TypeError, match=r"can't convert meta device type tensor to numpy\. Use Tensor\.cpu\(\)"):
        torch.ones(2, device="meta").numpy()

    # Autograd cannot see writes made through the NumPy alias: the gradient silently uses the new value.
    v = torch.ones(3, requires_grad=True)
    loss = (v * v).sum()  # saves v for backward
    v.detach().numpy()[0] = 5.0
    loss.backward()
    assert v.grad.tolist() == [10.0, 2.0, 2.0]  # 2 * 5, though the forward pass saw 1
    # The same write made by a torch in-place op bumps the version counter, and backward refuses.
    u = torch.ones(3, requires_grad=True)
    loss = (u * u).sum()
    u.detach().mul_(5.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


if __name__ == "__main__":
    _check()
