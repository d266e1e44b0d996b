"""torch.profiler with a schedule: skip the first steps, record a few, hand each window to on_trace_ready."""

# --8<-- [start:schedule]
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8))
x = torch.randn(32, 64)
windows = []


# called when each active window closes; real code exports the trace:
# prof.export_chrome_trace(path), or pass tensorboard_trace_handler(dir)
def on_trace_ready(prof):
    windows.append(prof.step_num)


with profile(
    activities=[ProfilerActivity.CPU],  # add ProfilerActivity.CUDA on a GPU
    # 4-step cycles, twice, then stop
    schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
    on_trace_ready=on_trace_ready,
    acc_events=True,  # keep the events of every cycle for key_averages()
) as prof:
    for _ in range(10):
        with record_function("train_step"):
            model(x).sum().backward()
        prof.step()  # one call per iteration drives the schedule

print(windows)  # traces were handed over after steps 4 and 8
# > [4, 8]
averages = prof.key_averages()
# 2 active steps x 2 cycles
print([e.count for e in averages if e.key == "train_step"])
# > [4]
# the text view of the same data
table = averages.table(sort_by="self_cpu_time_total", row_limit=10)
print("train_step" in table)
# > True
# --8<-- [end:schedule]

scheduled = prof  # kept for the checks

# --8<-- [start:device_names]
import torch
from torch.profiler import profile

with profile() as prof:
    torch.randn(64, 64) @ torch.randn(64, 64)
averages = prof.key_averages()
row = averages[0]
print(hasattr(row, "device_time_total"), hasattr(row, "cuda_time_total"))
# > True False
# "cuda_time_total" is the old name
table = averages.table(sort_by="device_time_total", row_limit=10)
# --8<-- [end:device_names]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import json
    import os
    import tempfile
    import warnings

    import pytest

    # prof.step() opens a range per recorded step: ProfilerStep#N in the exported trace, one
    # aggregated ProfilerStep* row in the averages.
    assert "ProfilerStep*" in [e.key for e in scheduled.key_averages()]
    with tempfile.TemporaryDirectory() as folder:
        exported = []

        def export(p):
            path = os.path.join(folder, f"trace_{p.step_num}.json")
            p.export_chrome_trace(path)
            exported.append(path)

        with profile(
            activities=[ProfilerActivity.CPU],
            schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
            on_trace_ready=export,
        ) as p:
            for _ in range(5):
                torch.ones(2) + 1
                p.step()
        with open(exported[0], encoding="utf-8") as trace:
            names = {e.get("name", "") for e in json.load(trace)["traceEvents"]}
    assert {n for n in names if n.startswith("ProfilerStep")} == {"ProfilerStep#2", "ProfilerStep#3"}
    # with_stack=True lets key_averages group by the Python call site.
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as stacked:
        model(x)
    assert len(stacked.key_averages(group_by_stack_n=5)) > 0

    # repeat=0 (the default) cycles for as long as the loop runs, and flushes a partial window on exit.
    seen = []
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=2),
        on_trace_ready=lambda p: seen.append(p.step_num),
        acc_events=True,
    ) as p:
        for _ in range(10):
            p.step()
    assert seen == [4, 8, 10]
    # repeat=1 records one window and then nothing: the wait and warmup steps are never recorded.
    seen.clear()
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=lambda p: seen.append(p.step_num),
    ) as p:
        for _ in range(10):
            with record_function("step"):
                torch.ones(2) + 1
            p.step()
    assert seen == [4]
    assert [e.count for e in p.key_averages() if e.key == "step"] == [2]
    # Without acc_events, a second cycle warns and only the last cycle's events are kept.
    with pytest.warns(UserWarning, match="Profiler clears events at the end of each cycle"):
        with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=2)) as p:
            for _ in range(10):
                with record_function("step"):
                    torch.ones(2) + 1
                p.step()
    assert [e.count for e in p.key_averages() if e.key == "step"] == [2]

    # The outline's sort key still works: table() maps "cuda" to "device" and gives the same table...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert averages.table(sort_by="cuda_time_total", row_limit=10) == table
    # ...but the attribute is gone from the averages and deprecated on single events.
    with pytest.raises(AttributeError, match="cuda_time_total"):
        _ = averages[0].cuda_time_total
    event = prof.events()[0]
    assert event.device_time_total == 0  # nothing ran on a device here
    with pytest.warns(FutureWarning, match="`cuda_time_total` is deprecated. Use `device_time_total` instead."):
        _ = event.cuda_time_total
    assert averages[0].self_device_time_total == 0 and averages[0].cpu_time_total > 0
    # Asking for CUDA activity on a machine without a GPU is not an error: it warns and profiles the CPU.
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                torch.ones(2) + 1


if __name__ == "__main__":
    _check()
