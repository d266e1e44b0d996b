"""Device-agnostic code: pick the device once with torch.accelerator, then create on it."""

# --8<-- [start:demo]
import torch

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4, device=device)  # create data where it will be used
print(model(x).device.type == device.type)
# > True
# so compare .type, not whole devices
print(torch.device("cuda") == torch.device("cuda:0"))
# > False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    built = torch.accelerator.current_accelerator()  # what this build was compiled for
    usable = torch.accelerator.current_accelerator(check_available=True)  # ...and only if it can run now

    # check_available=True returns the accelerator only when it is usable, else None.
    assert usable == (built if torch.accelerator.is_available() else None)
    # Without it, a CUDA build answers "cuda" even on a machine with no usable GPU (the CPU lane here).
    assert not torch.backends.cuda.is_built() or built == torch.device("cuda")
    assert torch.accelerator.is_available() or usable is None
    if built is not None and not torch.accelerator.is_available():  # the CPU lane: a CUDA build, no GPU
        with pytest.raises(RuntimeError):
            torch.zeros(1).to(built)  # trusting current_accelerator() alone fails at the first move
    # The device it returns carries no index; current_device_index() says which one is current.
    assert built is None or built.index is None
    # The torch 2.6-compatible spelling (check_available arrived in 2.7) picks the same device.
    guarded = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
    assert guarded == device
    # The dated idiom agrees on CUDA-or-CPU machines, but never picks MPS or XPU.
    dated = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert dated.type == device.type

    # The model and the data ended up on the chosen device.
    assert next(model.parameters()).device.type == device.type and x.device.type == device.type
    # A device without an index is not equal to the same device with one; .type compares the kind.
    assert torch.device("cuda") != torch.device("cuda:0") and torch.device("cuda:0").type == "cuda"
    assert torch.device("cuda").index is None and torch.device("cuda:1").index == 1
    # "cuda:0" and torch.device("cuda:0") are interchangeable everywhere: hard-coding is about the value.
    assert torch.device("cuda:0") == torch.device("cuda", 0)
    assert torch.zeros(1, device="meta").device == torch.zeros(1, device=torch.device("meta")).device
    # A device context manager sets the default for factory calls inside it.
    with torch.device("meta"):
        assert torch.zeros(2).device.type == "meta"
    assert torch.zeros(2).device.type == "cpu"
    # Drift alarm: the generic memory statistics the page names exist (recent releases) and answer with
    # an int (0 where no accelerator holds memory, as on the CPU lane).
    allocated = torch.accelerator.memory_allocated()
    assert isinstance(allocated, int) and allocated >= 0
    assert callable(torch.accelerator.max_memory_allocated) and callable(torch.accelerator.memory_stats)
    assert callable(torch.accelerator.synchronize) and callable(torch.accelerator.set_device_index)
    # check_available is a keyword of current_accelerator (torch 2.7+) and defaults to False.
    import inspect

    assert inspect.signature(torch.accelerator.current_accelerator).parameters["check_available"].default is False
    # Backend-specific modules are reachable generically.
    assert torch.get_device_module("cpu") is torch.cpu
    assert torch.get_device_module(torch.device("cuda")) is torch.cuda


if __name__ == "__main__":
    _check()
