"""Dispatch keys: what a tensor carries, their priority, and what no_grad and inference_mode change."""

# --8<-- [start:keys]
import torch

DK = torch._C.DispatchKey
print(torch._C._dispatch_keys(torch.randn(3)))
# > DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
order = ["Dense", "Python", "Functionalize", "ADInplaceOrView",
         "AutogradFunctionality", "AutocastCPU", "PythonDispatcher"]
print([int(getattr(DK, name)) for name in order])  # higher runs first
# > [1, 13, 15, 19, 21, 24, 46]
# --8<-- [end:keys]

# --8<-- [start:mode]
from contextlib import nullcontext

import torch
from torch.utils._python_dispatch import TorchDispatchMode

DK = torch._C.DispatchKey


class KeyLog(TorchDispatchMode):
    """Log each op and the keys of its output, besides CPU and AutocastCPU."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        keys = str(torch._C._dispatch_keys(out))[15:-1].split(", ")
        keys = [k for k in keys if k not in ("CPU", "AutocastCPU")]
        self.seen.append(f"{func.__name__}: {' '.join(keys) or '-'}")
        return out


def excluded(key):  # is this key switched off for the current thread?
    return torch._C._dispatch_tls_is_dispatch_key_excluded(key)


x = torch.randn(3, requires_grad=True)
for name, ctx in [("grad", nullcontext()), ("no_grad", torch.no_grad()),
                  ("inference", torch.inference_mode())]:
    log = KeyLog()
    log.seen = []
    with ctx, log:
        y = x * 2
        off = excluded(DK.AutogradFunctionality)
    print(f"{name:9}", off, y.requires_grad, log.seen)
# > grad      False True ['mul.Tensor: ADInplaceOrView AutogradCPU']
# > no_grad   False False ['mul.Tensor: ADInplaceOrView AutogradCPU']
# > inference True False ['mul.Tensor: -']
# --8<-- [end:mode]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.raises(AttributeError):
        _ = DK.Fake  # FakeTensor rides the Python key; there is no Fake key
    assert int(DK.FuncTorchBatched) > int(DK.AutocastCPU) > int(DK.AutogradFunctionality)
    assert int(DK.PythonDispatcher) > int(DK.PreDispatch) > int(DK.PythonTLSSnapshot) > int(DK.FuncTorchBatched)
    assert int(DK.ADInplaceOrView) > int(DK.ZeroTensor) > int(DK.Negative) > int(DK.Conjugate) > int(DK.Functionalize)
    assert int(DK.Python) > int(DK.BackendSelect) > int(DK.Dense)
    plain = torch._C._dispatch_keys(torch.randn(3))
    assert plain == torch._C._dispatch_keys(torch.randn(3, requires_grad=True))  # requires_grad changes no key
    # autocast works by taking its key off the default exclude set
    assert excluded(DK.AutocastCPU)
    with torch.autocast("cpu"):
        assert not excluded(DK.AutocastCPU)
    with torch.no_grad():
        assert not excluded(DK.AutogradFunctionality)  # no_grad only flips GradMode
    assert "ADInplaceOrView" in str(torch._C._dispatch_tls_local_include_set())
    with torch.inference_mode():
        assert excluded(DK.AutogradFunctionality)
        assert str(torch._C._dispatch_tls_local_include_set()) == "DispatchKeySet(BackendSelect)"
        t = torch.randn(2)
    assert str(torch._C._dispatch_keys(t)) == "DispatchKeySet(CPU, AutocastCPU)"


if __name__ == "__main__":
    _check()
