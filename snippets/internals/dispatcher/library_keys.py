"""torch.library: a kernel per dispatch key, CompositeImplicit vs CompositeExplicit, the autograd fallback."""
# runs in its own process: a process can define the m11 library once, and the page's copy defines it too

# --8<-- [start:demo]
import torch
from torch.library import Library
from torch.utils._python_dispatch import TorchDispatchMode

lib = Library("m11", "DEF")  # one DEF per namespace per process
calls = {"cpu": 0}


def scale_cpu(x, s):
    calls["cpu"] += 1
    return x * s


lib.define("scale(Tensor x, float s) -> Tensor")
lib.impl("scale", scale_cpu, "CPU")
lib.impl("scale", lambda x, s: torch.empty_like(x), "Meta")  # shape only

m = torch.ops.m11.scale(torch.ones(2, 3, device="meta"), 2.0)
print(m.shape, m.device, calls["cpu"])  # the CPU kernel never ran
# > torch.Size([2, 3]) meta 0

# the same body, registered above autograd (CIA) or below it (CEA)
lib.define("scale_implicit(Tensor x, float s) -> Tensor")
lib.impl("scale_implicit", scale_cpu, "CompositeImplicitAutograd")
lib.define("scale_explicit(Tensor x, float s) -> Tensor")
lib.impl("scale_explicit", scale_cpu, "CompositeExplicitAutograd")


class OpLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


x = torch.ones(3, requires_grad=True)
for op in (torch.ops.m11.scale_implicit, torch.ops.m11.scale_explicit):
    log = OpLog()
    log.seen = []
    with log:
        y = op(x, 2.0)
    print(log.seen, y.grad_fn.name())
# > ['aten.mul.Tensor'] MulBackward0
# > ['m11.scale_explicit.default'] torch::autograd::WarnNotImplemented


def numpy_scale(x, s):  # opaque to autograd: NumPy
    return torch.from_numpy(x.detach().numpy() * s)


lib.define("np_scale(Tensor x, float s) -> Tensor")
lib.impl("np_scale", numpy_scale, "CPU")
y = torch.ops.m11.np_scale(x, 2.0)
print(y.requires_grad)  # looks differentiable...
# > True
y.sum().backward()  # ...warns "an autograd kernel was not registered"
print(x.grad)  # and the gradient is silently lost
# > None
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    dump = torch._C._dispatch_dump("m11::scale")
    assert "\nCPU: registered" in dump and "\nMeta: registered" in dump
    with pytest.raises(NotImplementedError, match="Could not run 'm11::scale' with arguments from the 'SparseCPU'"):
        torch.ops.m11.scale(torch.eye(2).to_sparse(), 2.0)
    z = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="an autograd kernel was not registered to the Autograd key"):
        torch.ops.m11.np_scale(z, 2.0).sum().backward()
    assert z.grad is None
    # CEA gets no derivative of its own: backward warns, and here the gradient leaks through the
    # kernel's inner ATen call (x * s), recorded below the fallback
    with pytest.warns(UserWarning, match="m11::scale_explicit: an autograd kernel was not registered"):
        torch.ops.m11.scale_explicit(z, 2.0).sum().backward()
    assert torch.equal(z.grad, torch.full((3,), 2.0))
    # CIA: the gradient flows through the decomposition, with no warning
    z.grad = None
    torch.ops.m11.scale_implicit(z, 2.0).sum().backward()
    assert torch.equal(z.grad, torch.full((3,), 2.0))
    # custom_op fills three slots: CompositeExplicitAutograd (the kernel), Meta (the fake), Autograd
    @torch.library.custom_op("m11::probe", mutates_args=())
    def probe(t: torch.Tensor) -> torch.Tensor:
        return t.clone()

    slots = [line.split(":")[0] for line in torch._C._dispatch_dump("m11::probe").splitlines()[4:]]
    assert slots == ["Meta", "Autograd[alias]", "CompositeExplicitAutograd[alias]"], slots
    assert torch.equal(probe(z.detach()), z.detach())  # and the kernel it registered runs
    # the error mode of the fallback is not implemented on 2.14
    with pytest.raises(RuntimeError, match="NYI: mode='error'"):
        torch._C._set_autograd_fallback_mode("error")


if __name__ == "__main__":
    _check()
