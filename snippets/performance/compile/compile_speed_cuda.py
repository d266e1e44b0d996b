"""Measure a compiled model fairly: the first call pays for compilation; compare steady state after warm-up."""

# --8<-- [start:demo]
import time

import torch
from torch import nn
from torch.utils import benchmark

model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
model = model.cuda()
x = torch.randn(256, 1024, device="cuda")
compiled = torch.compile(model)

torch.cuda.synchronize()
start = time.perf_counter()
with torch.no_grad():
    compiled(x)  # the first call traces, compiles and runs
torch.cuda.synchronize()
# seconds: compile time, paid once per shape/guard set
first_call_s = time.perf_counter() - start


# warm-up, repetition and synchronization are done by the Timer
def steady_ms(fn):
    timer = benchmark.Timer(stmt="with torch.no_grad(): fn(x)",
                            globals={"torch": torch, "fn": fn, "x": x})
    return timer.blocked_autorange(min_run_time=0.5).median * 1e3


# compare these, never first_call_s
eager_ms, compiled_ms = steady_ms(model), steady_ms(compiled)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # No timing is asserted: only that the measurements happened and the numbers agree.
    assert first_call_s > 0 and eager_ms > 0 and compiled_ms > 0
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    _check()
