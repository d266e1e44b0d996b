"""CUDA kernels are queued asynchronously: time them with synchronize() around a wall clock, or with CUDA events."""

# --8<-- [start:demo]
import time

import torch

x = torch.randn(8192, 8192, device="cuda")
x @ x  # warm-up: the first call pays for cuBLAS setup
torch.cuda.synchronize()

for _ in range(10):
    y = x @ x  # each call queues a kernel and returns at once
# has the GPU finished the queue? not yet
print(torch.cuda.current_stream().query())
# > False
torch.cuda.synchronize()  # block until every queued kernel has run
print(torch.cuda.current_stream().query())
# > True


def wall_ms(fn):
    torch.cuda.synchronize()  # start from an idle GPU
    start = time.perf_counter()
    fn()
    # stop the clock when the GPU is done, not when Python is
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3


begin = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
begin.record()  # events are queued on the stream, on either side of the kernel
y = x @ x
end.record()
end.synchronize()  # elapsed_time needs the end event to have happened
# both in milliseconds
print(wall_ms(lambda: x @ x) > 0, begin.elapsed_time(end) > 0)
# > True True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.utils import benchmark

    stream = torch.cuda.current_stream()
    # Launches return before the work is done: the queue is still busy right after them.
    for _ in range(10):
        x @ x
    assert not stream.query()
    torch.cuda.synchronize()
    assert stream.query()

    # Event timing measures GPU time between two points in the stream.
    assert begin.elapsed_time(end) > 0
    assert wall_ms(lambda: x @ x) > 0
    # torch.utils.benchmark synchronizes for you (its clock calls torch.accelerator.synchronize()).
    assert benchmark.Timer(stmt="x @ x", globals={"x": x}).timeit(3).median > 0
    assert y.shape == (8192, 8192) and y.device.type == "cuda"


if __name__ == "__main__":
    _check()
