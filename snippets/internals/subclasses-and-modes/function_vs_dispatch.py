"""__torch_function__ sees the Python API calls; __torch_dispatch__ sees ATen ops below autograd, backward included."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class ApiLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


class AtenLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(func.__name__)  # the overload: "addmm.default"
        return func(*args, **(kwargs or {}))


lin, x = nn.Linear(4, 3), torch.randn(2, 4)
api, aten = ApiLog(), AtenLog()
api.seen, aten.seen = [], []
with api, aten:
    loss = F.gelu(lin(x)).sum()
print(api.seen)
# > ['linear', 'gelu', 'sum']
print(aten.seen)  # linear was decomposed above the Python key
# > ['t.default', 'addmm.default', 'gelu.default', 'sum.default']

api.seen, aten.seen = [], []
with api, aten:
    loss.backward()
print(api.seen, len(aten.seen), "gelu_backward.default" in aten.seen)
# > ['backward'] 11 True

aten.seen = []
with torch.autocast("cpu", dtype=torch.bfloat16), aten:
    lin(x)
print([name.split(".")[0] for name in aten.seen])  # casts come first
# > ['_to_copy', '_to_copy', '_to_copy', 't', 'addmm']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    api.seen, aten.seen = [], []
    with api, aten:
        F.gelu(lin(x)).sum().backward()
    backward_ops = aten.seen[4:]
    assert "gelu_backward.default" in backward_ops
    assert backward_ops.count("mm.default") == 1  # the weight's gradient; x needs none
    assert api.seen == ["linear", "gelu", "sum", "backward"]  # never a backward op

    class Excluded(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.excluded = str(torch._C._dispatch_tls_local_exclude_set())
            self.autograd_off = torch._C._dispatch_tls_is_dispatch_key_excluded(
                torch._C.DispatchKey.AutogradFunctionality
            )
            return func(*args, **(kwargs or {}))

    probe = Excluded()
    with torch.autocast("cpu", dtype=torch.bfloat16), probe:
        torch.ones(2) + 1
    assert "ADInplaceOrView" in probe.excluded and "AutocastCPU" in probe.excluded
    assert "Functionalize" in probe.excluded and probe.autograd_off


if __name__ == "__main__":
    _check()
