"""A first profile of a training loop: DataLoader, forward, backward and optimizer phases, labelled for free."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.profiler import profile, record_function
from torch.utils.data import DataLoader, TensorDataset

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
loader = DataLoader(TensorDataset(torch.randn(256, 32), torch.randn(256, 1)), batch_size=64)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
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

phases = ("enumerate(DataLoader)", "forward", "backward", "Optimizer.step")
for event in prof.key_averages():
    if event.key.startswith(phases):
        print(f"{event.key:60} calls={event.count}")
# > enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__  calls=5
# > forward                                                      calls=4
# > backward                                                     calls=4
# > Optimizer.step#SGD.step                                      calls=4
phase_ms = {e.key: e.cpu_time_total / 1e3 for e in prof.key_averages() if e.key.startswith(phases)}
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Four batches and one more __next__ call that raised StopIteration; every phase has a CPU time.
    assert len(phase_ms) == 4 and all(ms > 0 for ms in phase_ms.values())
    keys = [e.key for e in prof.key_averages()]
    assert "Optimizer.zero_grad#SGD.zero_grad" in keys  # zero_grad is labelled too
    # The profiler saw the model's ops as well, nested inside the labels.
    assert "aten::addmm" in keys or "aten::linear" in keys
    # profile() with no activities profiles everything this build and machine support.
    assert torch.profiler.ProfilerActivity.CPU in torch.profiler.supported_activities()


if __name__ == "__main__":
    _check()
