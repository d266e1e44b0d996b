"""Literal and NumPy dtypes, and PyTorch's promotion rules: category first, dimensioned tensors before scalars."""

# --8<-- [start:literals]
import numpy as np
import torch

print(torch.tensor(1.5).dtype, torch.tensor(3).dtype, torch.tensor(True).dtype)
# > torch.float32 torch.int64 torch.bool
print(torch.tensor([1, 2.5]).dtype, torch.get_default_dtype())
# > torch.float32 torch.float32
print(torch.tensor(np.array([1.5, 2.5])).dtype)  # NumPy's float64 is kept
# > torch.float64
print(torch.tensor(np.float64(1.5)).dtype)
# > torch.float64
# --8<-- [end:literals]

# --8<-- [start:promotion]
import torch

i32 = torch.tensor([1, 2], dtype=torch.int32)
f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
# a Python scalar only decides the category
print((i32 + 7).dtype, (i32 + 0.5).dtype)
# > torch.int32 torch.float32
# a 0-d tensor of the same category
print((f16 + torch.tensor(1.0, dtype=torch.float64)).dtype)
# > torch.float16
# two dimensioned tensors
print((f16 + torch.ones(2, dtype=torch.float64)).dtype)
# > torch.float64
u8 = torch.tensor([1], dtype=torch.uint8)
i8 = torch.tensor([1], dtype=torch.int8)
print(torch.result_type(u8, i8))
# > torch.int16
ints = torch.tensor([3, 4])
print((ints / torch.tensor([2, 2])).dtype, (ints // 2).dtype)
# > torch.float32 torch.int64
# --8<-- [end:promotion]

# --8<-- [start:fix]
import numpy as np
import torch

layer = torch.nn.Linear(3, 2)
features = np.linspace(0.0, 1.0, 12).reshape(4, 3)  # NumPy's default: float64
x = torch.from_numpy(features)
print(x.dtype, layer.weight.dtype)
# > torch.float64 torch.float32
out = layer(torch.as_tensor(features, dtype=torch.float32))  # or x.float()
print(out.dtype)
# > torch.float32
# --8<-- [end:fix]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import numpy as np
    import pytest

    # Literals follow the default dtype for floats, int64 for ints; a mixed list takes the higher category.
    assert torch.tensor(1.5).dtype == torch.get_default_dtype() == torch.float32
    assert torch.tensor([True, 2]).dtype == torch.int64
    assert torch.tensor(1 + 2j).dtype == torch.complex64
    # NumPy arrays and NumPy scalars keep their dtype: float64, not the default.
    assert np.array([1.5]).dtype == np.float64 and np.array([1]).dtype == np.int64
    assert torch.tensor(np.array([1, 2])).dtype == torch.int64
    assert torch.tensor(np.mean(np.array([1.0, 2.0]))).dtype == torch.float64
    assert torch.tensor(np.float32(1.5)).dtype == torch.float32
    # The default dtype only governs Python floats.
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor(1.5).dtype == torch.float64
        assert torch.tensor(3).dtype == torch.int64
        assert torch.tensor(np.array([1.5], dtype=np.float32)).dtype == torch.float32
        assert torch.result_type(i32, 0.5) == torch.float64  # a Python float over ints: the default dtype
        assert (torch.tensor([3]) / torch.tensor([2])).dtype == torch.float64
    finally:
        torch.set_default_dtype(previous)
    # torch.Tensor(3) is the legacy constructor: an uninitialised float tensor of shape (3,), not a scalar.
    legacy = torch.Tensor(3)
    assert legacy.shape == (3,) and legacy.dtype == torch.float32
    assert torch.tensor(3).shape == () and torch.tensor(3).dtype == torch.int64

    # Promotion: category order bool < integer < floating < complex; a higher category always wins.
    assert torch.result_type(i32, 7) == torch.int32
    assert torch.result_type(i32, 0.5) == torch.float32  # a float scalar over ints gives the default dtype
    assert torch.result_type(torch.tensor([True]), 1) == torch.int64
    assert torch.result_type(i32, True) == torch.int32
    # Dimensioned tensors beat 0-d tensors and scalars of the same category...
    assert torch.result_type(f16, torch.tensor(1.0, dtype=torch.float64)) == torch.float16
    assert torch.result_type(torch.ones(2), torch.tensor(1.0, dtype=torch.float64)) == torch.float32
    assert torch.result_type(torch.tensor([1], dtype=torch.int8), torch.tensor(3)) == torch.int8
    # ...but a 0-d tensor of a higher category brings its own dtype (unlike a Python float).
    assert torch.result_type(i32, torch.tensor(1.5, dtype=torch.float64)) == torch.float64
    assert torch.result_type(f16, torch.ones(2, dtype=torch.float64)) == torch.float64
    assert torch.promote_types(torch.uint8, torch.int8) == torch.int16
    assert (torch.tensor([3, 4]) / torch.tensor([2, 2])).tolist() == [1.5, 2.0]
    # Weak scalars never widen: the result overflows quietly in the tensor's own dtype.
    assert (torch.tensor([0], dtype=torch.int8) + 1000).tolist() == [-24]
    assert torch.isinf(f16 + 1e10).all()
    # NumPy 2 (NEP 50) also treats Python scalars as weak, but refuses the overflow...
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        np.zeros(1, dtype=np.int8) + 1000
    # ...and a NumPy 0-d array is not weak, where a PyTorch 0-d tensor is.
    assert (np.zeros(2, dtype=np.float16) + np.array(1.0)).dtype == np.float64
    assert (np.zeros(2, dtype=np.float16) + 1.0).dtype == np.float16
    # In-place ops cannot change the destination dtype: upcasting raises, downcasting is silent.
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).add_(0.5)
    target = torch.zeros(2)
    target.add_(torch.ones(2, dtype=torch.float64))
    assert target.dtype == torch.float32

    # float64 data meets float32 weights: the real error, and the fixes.
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"):
        layer(x)
    torch.testing.assert_close(layer(x.float()), out)
    assert torch.from_numpy(features.astype(np.float32)).dtype == torch.float32
    # model.double() "fixes" it by doubling the bytes of every parameter.
    assert torch.nn.Linear(3, 2).double().weight.element_size() == 2 * layer.weight.element_size()
    reference = torch.nn.functional.linear(x, layer.weight.double(), layer.bias.double())  # all float64
    torch.testing.assert_close(out, reference.float())


if __name__ == "__main__":
    _check()
