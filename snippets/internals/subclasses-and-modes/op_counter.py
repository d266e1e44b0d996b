"""A TorchDispatchMode that counts ops, and FlopCounterMode: the same hook with a formula per op."""

# --8<-- [start:counter]
from collections import Counter

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[func.overloadpacket.__name__] += 1  # "addmm", "mm"...
        return func(*args, **(kwargs or {}))  # the mode is off in here


layer = nn.Linear(8, 16)
x = torch.randn(4, 8, requires_grad=True)
with OpCounter() as counter:
    layer(x).sum().backward()
print(counter.counts["addmm"], counter.counts["mm"])
# > 1 2
# --8<-- [end:counter]

# --8<-- [start:flops]
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

layer = nn.Linear(8, 16)
x = torch.randn(4, 8, requires_grad=True)

with FlopCounterMode(display=False) as flops:
    layer(x).sum().backward()
print(flops.get_total_flops())  # 2*4*8*16 forward, twice that backward
# > 3072

with torch.device("meta"):  # cost a big layer without allocating it
    big, h = nn.Linear(4096, 4096), torch.randn(128, 4096)
with FlopCounterMode(display=False) as flops:
    big(h)
print(flops.get_total_flops() == 2 * 128 * 4096 * 4096)
# > True

q = k = v = torch.randn(1, 2, 16, 8)
with FlopCounterMode(display=False) as flops:
    F.scaled_dot_product_attention(q, k, v)
print(flops.get_total_flops())  # CPU flash attention has no formula
# > 0
with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as flops:
    F.scaled_dot_product_attention(q, k, v)
print(flops.get_total_flops())
# > 16384
# --8<-- [end:flops]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import threading

    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    with FlopCounterMode(display=False) as forward_only:
        layer(x)
    assert forward_only.get_total_flops() == 1024
    # the op CPU SDPA really runs is one the counter has no formula for
    with OpCounter() as seen:
        F.scaled_dot_product_attention(q, k, v)
    assert "_scaled_dot_product_flash_attention_for_cpu" in seen.counts

    # nested modes: the innermost sees each op first, and is popped while its handler runs
    order = []

    class Named(TorchDispatchMode):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            order.append((self.name, len(_get_current_dispatch_mode_stack())))
            return func(*args, **(kwargs or {}))

    with Named("A"), Named("B"):
        torch.ones(2) + 1
    assert order[:2] == [("B", 1), ("A", 0)]

    # modes are thread-local: ops run by another thread are unseen
    with OpCounter() as local:
        worker = threading.Thread(target=lambda: torch.ones(2) + torch.ones(2))
        worker.start()
        worker.join()
    assert sum(local.counts.values()) == 0


if __name__ == "__main__":
    _check()
