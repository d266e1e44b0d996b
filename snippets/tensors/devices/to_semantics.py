"""Tensor.to returns a tensor (the same object when nothing changes); Module.to moves the module in place."""

# --8<-- [start:demo]
import torch

x = torch.ones(3)
# nothing to convert: x itself comes back
print(x.to("cpu") is x, x.to(torch.float32) is x)
# > True True
y = x.to("meta")  # a real move: a new tensor, and x stays where it was
print(y is x, x.device, y.device)
# > False cpu meta
model = torch.nn.Linear(3, 2)
# in place, and returns self for chaining
print(model.to("meta") is model, model.weight.device)
# > True meta
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Tensor.to: the same object when dtype, device and memory format already match...
    t = torch.ones(3)
    assert t.to("cpu") is t and t.to(torch.device("cpu")) is t and t.to(t) is t
    assert t.cpu() is t and t.float() is t
    # ...a new tensor when anything changes, or when copy=True asks for one.
    assert t.to(torch.float64) is not t and t.to("cpu", copy=True) is not t
    assert y is not x and x.device.type == "cpu" and y.device.type == "meta"

    # Module.to: in place, returns self, for devices and dtypes alike.
    m = torch.nn.Linear(3, 2)
    assert m.double() is m and m.weight.dtype == torch.float64
    assert model.weight.device.type == "meta" and model.bias.device.type == "meta"
    # Between dense CPU and CUDA tensors (and for dtype changes) the Parameter objects are kept and
    # only their data is swapped; a conversion that cannot swap data, such as to "meta", makes new
    # Parameters, and an optimizer built before it still holds the old ones.
    weight = m.weight
    m.float()
    assert m.weight is weight
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    m.to("meta")
    assert m.weight is not weight and opt.param_groups[0]["params"][0] is weight

    # The leaf trap: .to() on a tensor that requires grad records a copy op, so the result is not a leaf.
    # On a CPU-only machine .to("cpu") returns the leaf itself, so the bug only shows on the GPU box.
    w_cpu = torch.randn(3, requires_grad=True).to("cpu")
    assert w_cpu.is_leaf
    w_moved = torch.randn(3, requires_grad=True).to("meta")
    assert not w_moved.is_leaf and type(w_moved.grad_fn).__name__ == "ToCopyBackward0"
    w_right = torch.randn(3, device="meta", requires_grad=True)  # create it on the device instead
    assert w_right.is_leaf


if __name__ == "__main__":
    _check()
