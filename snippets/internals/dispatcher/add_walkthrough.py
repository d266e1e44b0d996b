"""torch.add from Python to kernel: one API call, one ATen overload, a kernel per dispatch key."""

# --8<-- [start:demo]
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class ApiLog(TorchFunctionMode):  # the Python API layer, before dispatch
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


class AtenLog(TorchDispatchMode):  # the Python key, near the bottom
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


a = torch.randn(3, requires_grad=True)
b = torch.randn(3)
api, aten = ApiLog(), AtenLog()
api.seen, aten.seen = [], []
with api, aten:
    c = torch.add(a, b)
print(api.seen, aten.seen)
# > ['add'] ['aten.add.Tensor']
print(torch.add is torch._C._VariableFunctions.add)
# > True
print(torch.ops.aten.add.Tensor._schema)
# > aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
has = torch._C._dispatch_has_kernel_for_dispatch_key
print([has("aten::add.Tensor", k) for k in ("CPU", "Meta", "Autograd")])
# > [True, True, True]
print(c.grad_fn.name())
# > AddBackward0
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import types

    assert isinstance(torch.add, types.BuiltinFunctionType)
    assert len(torch.ops.aten.add.overloads()) >= 10  # add.Tensor is one overload among many
    dump = torch._C._dispatch_dump("aten::add.Tensor")
    assert "CPU: registered at" in dump and "Meta: registered at" in dump
    assert "_meta_registrations.py" in torch._C._dispatch_dump("aten::nonzero")
    torch.testing.assert_close(c, a.detach() + b)


if __name__ == "__main__":
    _check()
