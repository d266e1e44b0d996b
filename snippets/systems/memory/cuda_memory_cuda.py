"""CUDA memory tools: allocated vs reserved, the peak, empty_cache, and a memory snapshot."""

# --8<-- [start:allocated_reserved]
import gc

import torch

gc.collect()  # free unreachable tensors first, for a clean baseline
torch.cuda.synchronize()
base = torch.cuda.memory_allocated()
torch.cuda.reset_peak_memory_stats()

x = torch.empty(256, 1024, 1024, device="cuda")  # exactly 1 GiB of float32
y = x * 2  # a second GiB, briefly
del y
gib = 2**30
print(f"{(torch.cuda.memory_allocated() - base) / gib:.1f}")  # live tensors
# > 1.0
# the high-water mark since the reset
print(f"{(torch.cuda.max_memory_allocated() - base) / gib:.1f}")
# > 2.0
del x
cached = torch.cuda.memory_reserved()
# freed, but still reserved
print(torch.cuda.memory_allocated() <= base, cached - base >= 2 * gib)
# > True True
# hands unused cached blocks back to the driver; it never frees a live tensor
torch.cuda.empty_cache()
print(cached - torch.cuda.memory_reserved() >= 2 * 2**30)
# > True
# --8<-- [end:allocated_reserved]

# --8<-- [start:snapshot]
import os
import tempfile

import torch

# start recording, with stack traces
torch.cuda.memory._record_memory_history(max_entries=10_000)
model = torch.nn.Linear(1024, 1024, device="cuda")
model(torch.randn(64, 1024, device="cuda")).sum().backward()
snapshot = torch.cuda.memory._snapshot()
path = os.path.join(tempfile.mkdtemp(), "snapshot.pickle")
# drag the file onto https://pytorch.org/memory_viz
torch.cuda.memory._dump_snapshot(path)
torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
print(
    len(snapshot["segments"]) > 0,
    len(snapshot["device_traces"][0]) > 0,
    os.path.getsize(path) > 0,
)
# > True True True
# --8<-- [end:snapshot]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The figures are relative to the baseline and rounded, so a tensor of an
    # earlier snippet collected mid-run cannot change them; the 1 GiB blocks
    # themselves are exact (1 GiB is a multiple of the allocator's rounding).
    assert abs(torch.cuda.max_memory_allocated() - base - 2 * gib) < 2**20
    actions = {entry["action"] for entry in snapshot["device_traces"][0]}
    assert "alloc" in actions
    # torch.accelerator exposes the same counters device-generically on 2.14.
    assert torch.accelerator.memory_allocated() == torch.cuda.memory_allocated()


if __name__ == "__main__":
    _check()
