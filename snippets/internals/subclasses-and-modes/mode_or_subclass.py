"""Mode or subclass: a mode sees factory functions in its scope; a subclass travels with its data."""

# --8<-- [start:demo]
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.overrides import _get_current_function_mode_stack
from torch.utils._python_dispatch import TorchDispatchMode


class OpLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


log = OpLog()
log.seen = []
with log:
    torch.randn(3)  # no tensor goes in: only a mode can catch this
print(log.seen)
# > ['aten.randn.default']

with torch.device("meta"):  # a TorchFunctionMode
    print([type(m).__name__ for m in _get_current_function_mode_stack()])
# > ['DeviceContext']

log.seen = []
with FakeTensorMode(), log:  # modes stack: log is innermost
    y = torch.randn(1024, 1024).cos()
print(log.seen, type(y).__name__)
# > ['aten.randn.default', 'aten.cos.default'] FakeTensor
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert _get_current_function_mode_stack() == []
    assert y.shape == (1024, 1024)


if __name__ == "__main__":
    _check()
