"""NVTX ranges for Nsight Systems, and one torch.profiler trace file per rank for a multi-GPU job."""

# --8<-- [start:nvtx]
import contextlib

import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 32, device=device)
y = torch.randn(64, 1, device=device)

# emit_nvtx adds an NVTX range around every op as well; it needs CUDA
per_op = (torch.autograd.profiler.emit_nvtx() if device.type == "cuda"
          else contextlib.nullcontext())
with per_op:
    for step in range(5):
        with torch.cuda.nvtx.range(f"step {step}"):  # a span in nsys
            with torch.cuda.nvtx.range("forward"):
                loss = nn.functional.mse_loss(model(x), y)
            with torch.cuda.nvtx.range("backward"):
                optimizer.zero_grad()
                loss.backward()
            optimizer.step()
print(torch.cuda.nvtx.range_push("probe"))  # no tool attached: a no-op
# > -2
torch.cuda.nvtx.range_pop()
# --8<-- [end:nvtx]

nvtx_loss = loss  # kept for the checks

# --8<-- [start:per_rank]
import os
import tempfile

import torch
from torch.profiler import (
    ProfilerActivity,
    profile,
    schedule,
    tensorboard_trace_handler,
)

rank = int(os.environ.get("RANK", 0))  # torchrun sets it in each process
folder = tempfile.mkdtemp(prefix="traces-")  # shared storage on a cluster
handler = tensorboard_trace_handler(folder, worker_name=f"rank{rank}")
with profile(
    activities=[ProfilerActivity.CPU],  # + ProfilerActivity.CUDA on GPUs
    schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
    on_trace_ready=handler,
) as prof:
    for _ in range(5):
        torch.randn(64, 64) @ torch.randn(64, 64)
        prof.step()
print([name.split(".")[0] for name in os.listdir(folder)])
# > ['rank0']
# --8<-- [end:per_rank]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import json
    import shutil

    import pytest

    assert torch.isfinite(nvtx_loss)
    # NVTX calls exist and run on a machine without a GPU; without Nsight attached they do nothing and
    # report NVTX_NO_PUSH_POP_TRACKING (-2), so the ranges can stay in production code.
    assert torch.cuda.nvtx.range_push("check") == -2 and torch.cuda.nvtx.range_pop() == -2
    torch.cuda.nvtx.mark("a point event")
    # emit_nvtx needs the CUDA driver: on a CPU-only machine entering it raises.
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="NVIDIA driver"):
            torch.autograd.profiler.emit_nvtx().__enter__()
    # torch.cuda.profiler.start/stop call cudaProfilerStart/Stop, the range nsys
    # --capture-range=cudaProfilerApi records.
    assert callable(torch.cuda.profiler.start) and callable(torch.cuda.profiler.stop)

    # One trace per rank, named after the worker: <worker_name>.<timestamp>.pt.trace.json, holding the
    # two active steps of the schedule.
    (name,) = os.listdir(folder)
    assert name.startswith("rank0.") and name.endswith(".pt.trace.json")
    with open(os.path.join(folder, name), encoding="utf-8") as trace:
        events = json.load(trace)["traceEvents"]
    steps = {e.get("name", "") for e in events if e.get("name", "").startswith("ProfilerStep")}
    assert steps == {"ProfilerStep#2", "ProfilerStep#3"}
    shutil.rmtree(folder)


if __name__ == "__main__":
    _check()
