"""On a GPU, CUDA nodes of the backward run on the engine's worker thread for that device."""

# --8<-- [start:demo]
import threading

import torch

x = torch.ones(3, device="cuda", requires_grad=True)
ran_on = []
x.register_hook(lambda g: ran_on.append(threading.get_ident()))
(x * 2).sum().backward()
print(ran_on[0] == threading.get_ident())  # a device thread ran the hook
# > False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.equal(x.grad, torch.full((3,), 2.0, device="cuda"))
    cpu = torch.ones(3, requires_grad=True)
    cpu_ran_on = []
    cpu.register_hook(lambda g: cpu_ran_on.append(threading.get_ident()))
    (cpu * 2).sum().backward()
    assert cpu_ran_on == [threading.get_ident()]


if __name__ == "__main__":
    _check()
