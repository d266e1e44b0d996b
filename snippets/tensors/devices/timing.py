"""torch.utils.benchmark.Timer warms up, repeats, synchronizes the accelerator and defaults to one thread."""

# --8<-- [start:demo]
import torch
from torch.utils import benchmark

a = torch.randn(256, 256)
# num_threads defaults to 1
timer = benchmark.Timer(stmt="a @ a", globals={"a": a})
# warm-up, then blocks of runs until 0.05 s is spent
m = timer.blocked_autorange(min_run_time=0.05)
# print(m) reports the median per run
print(m.task_spec.num_threads, m.median > 0, len(m.times) >= 1)
# > 1 True True
all_cores = benchmark.Timer(
    stmt="a @ a", globals={"a": a}, num_threads=torch.get_num_threads()
)
print(all_cores.timeit(20).number_per_run)
# > 20
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from unittest import mock

    # The Timer reads its clock through a function that synchronizes the accelerator first, so a
    # measurement on a GPU covers the kernels, not only their launch. Pretend an accelerator exists
    # and count the synchronize() calls: one around every clock reading.
    with (
        mock.patch.object(torch.accelerator, "is_available", return_value=True),
        mock.patch.object(torch.accelerator, "synchronize") as synchronize,
    ):
        benchmark.Timer(stmt="a @ a", globals={"a": a}).timeit(5)
    assert synchronize.call_count >= 2

    # The default of one thread is part of the measurement's record; ask for more explicitly.
    assert m.task_spec.num_threads == 1
    assert all_cores.timeit(3).task_spec.num_threads == torch.get_num_threads()
    # timeit(n) runs a warm-up of max(n // 100, 2) calls, then one timed block of n calls.
    measured = all_cores.timeit(20)
    assert measured.number_per_run == 20 and len(measured.times) == 1 and measured.median > 0


if __name__ == "__main__":
    _check()
