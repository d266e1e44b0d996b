"""A first profile of a training loop: DataLoader, forward, backward and optimizer phases, labelled for free."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.autograd import DeviceType
from torch.profiler import profile, record_function
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
data = TensorDataset(torch.randn(256, 32), torch.randn(256, 1))
loader = DataLoader(data, batch_size=64)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

with profile() as prof:  # CPU activity, plus the GPU's when there is one
    for xb, yb in loader:  # recorded as enumerate(DataLoader)#...__next__
        xb, yb = xb.to(device), yb.to(device)
        with record_function("forward"):  # your own labels
            loss = nn.functional.mse_loss(model(xb), yb)
        with record_function("backward"):
            optimizer.zero_grad()
            loss.backward()
        optimizer.step()  # recorded as Optimizer.step#SGD.step

PHASES = ("enumerate(DataLoader)", "forward", "backward", "Optimizer.step")


def phase_rows(averages):
    # On a GPU each label that launched kernels has a second row, its
    # gpu_user_annotation (device_type CUDA, 0 CPU time): keep the CPU rows.
    return [e for e in averages
            if e.device_type == DeviceType.CPU and e.key.startswith(PHASES)]


for event in phase_rows(prof.key_averages()):
    print(f"{event.key:60} calls={event.count}")
# > enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__  calls=5
# > forward                                                      calls=4
# > backward                                                     calls=4
# > Optimizer.step#SGD.step                                      calls=4
rows = phase_rows(prof.key_averages())
phase_ms = {e.key: e.cpu_time_total / 1e3 for e in rows}
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.autograd.profiler_util import EventList, FunctionEvent

    # Four batches and one more __next__ call that raised StopIteration; every phase has a CPU time.
    assert len(phase_ms) == 4 and all(ms > 0 for ms in phase_ms.values())
    keys = [e.key for e in prof.key_averages()]
    assert "Optimizer.zero_grad#SGD.zero_grad" in keys  # zero_grad is labelled too
    # The profiler saw the model's ops as well, nested inside the labels.
    assert "aten::addmm" in keys or "aten::linear" in keys
    # profile() with no activities profiles everything this build and machine support.
    assert torch.profiler.ProfilerActivity.CPU in torch.profiler.supported_activities()

    # "Why is my label listed twice?" key_averages() groups by name *and* device type, so a
    # record_function range that launched GPU kernels gets a CPU row and a gpu_user_annotation row
    # (device_type CUDA, no CPU time). Built here from two events, as the GPU profiler reports them:
    # a dict keyed by name alone keeps whichever row comes last, the 0; the CPU filter keeps the CPU time.
    host = FunctionEvent(id=1, name="forward", thread=0, start_us=0, end_us=900, is_user_annotation=True, stack=[])
    annotation = FunctionEvent(
        id=2, name="forward", thread=0, start_us=100, end_us=600,
        device_type=DeviceType.CUDA, is_user_annotation=True, stack=[],
    )
    events = EventList([host, annotation])
    events._build_tree()
    averages = events.key_averages()
    assert [e.key for e in averages] == ["forward", "forward"]
    assert {e.key: e.cpu_time_total for e in averages} == {"forward": 0}  # the old phase_ms: the 0 wins
    assert {e.key: e.cpu_time_total for e in phase_rows(averages)} == {"forward": 900}


if __name__ == "__main__":
    _check()
