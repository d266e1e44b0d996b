"""What training memory is made of: parameters, gradients, Adam states and saved activations, counted."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512))
x = torch.randn(64, 512)

n = sum(p.numel() for p in model.parameters())
params = n * 4  # float32
grads = n * 4  # one gradient per parameter, same dtype
adam = 2 * n * 4  # exp_avg and exp_avg_sq, float32

param_ptrs = {p.data_ptr() for p in model.parameters()}
saved = {}  # what backward will need, keyed by storage so aliases count once


def pack(t):
    # weights are saved too, but they cost nothing extra
    if t.data_ptr() not in param_ptrs:
        saved[t.data_ptr()] = t.numel() * t.element_size()
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    loss = model(x).square().mean()
activations = sum(saved.values())

mib = 2**20
print(f"{n:,} params: weights {params / mib:.2f} MiB, grads {grads / mib:.2f}")
# > 2,099,712 params: weights 8.01 MiB, grads 8.01
acts = activations / mib
print(f"Adam {adam / mib:.2f} MiB, activations {acts:.2f} (batch 64)")
# > Adam 16.02 MiB, activations 1.25 (batch 64)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import inspect

    # Drift alarm: the device-generic memory counters the page names exist on
    # 2.14, take an optional device index, and read 0 with no accelerator.
    for name in (
        "memory_allocated",
        "max_memory_allocated",
        "memory_reserved",
        "reset_peak_memory_stats",
    ):
        fn = getattr(torch.accelerator, name)
        assert "device_index" in inspect.signature(fn).parameters
    assert callable(torch.accelerator.empty_cache)
    if torch.accelerator.current_accelerator(check_available=True) is None:
        assert torch.accelerator.memory_allocated() == 0  # no device: nothing held

    # The estimate matches what the optimizer and autograd really hold after one step.
    optimizer = torch.optim.Adam(model.parameters())
    loss.backward()
    assert (
        sum(p.grad.numel() * p.grad.element_size() for p in model.parameters())
        == grads
    )
    optimizer.step()
    state_bytes = sum(
        s[k].numel() * s[k].element_size()
        for s in optimizer.state.values()
        for k in ("exp_avg", "exp_avg_sq")
    )
    assert state_bytes == adam
    # The saved activations are: the input, the first Linear's output (GELU's input), GELU's output
    # (the second Linear's input) and the model output (square's input).
    assert activations == 4 * 64 * (512 + 2048 + 2048 + 512)
    # Activations scale with the batch; parameter memory does not.
    saved.clear()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(torch.randn(128, 512)).square().mean()
    assert sum(saved.values()) == 2 * activations


if __name__ == "__main__":
    _check()
