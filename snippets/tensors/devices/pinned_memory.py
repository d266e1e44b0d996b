"""A device-agnostic input pipeline: pin host memory only for an accelerator, then copy with non_blocking=True."""

# --8<-- [start:demo]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
# pinning only helps a device copy
loader = DataLoader(dataset, batch_size=16, pin_memory=device.type != "cpu")
for features, labels in loader:
    # asynchronous when the source is pinned
    features = features.to(device, non_blocking=True)
    labels = labels.to(device, non_blocking=True)
print(features.shape, features.device.type == device.type)
# > torch.Size([16, 8]) True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    accelerator = torch.accelerator.is_available()
    # Ordinary tensors live in pageable memory; is_pinned() answers without needing a GPU.
    assert not torch.ones(2).is_pinned()
    # pin_memory=True pins each batch when an accelerator is usable; without one the DataLoader
    # says so with a UserWarning and hands out ordinary batches.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pinned_batch, _ = next(iter(DataLoader(dataset, batch_size=4, pin_memory=True)))
    warned = any("no accelerator is found" in str(w.message) for w in caught)
    assert warned == (not accelerator)
    assert pinned_batch.is_pinned() == accelerator
    # On the CPU, to(..., non_blocking=True) is a no-op that returns the tensor itself.
    cpu_batch = torch.randn(4, 8)
    assert cpu_batch.to("cpu", non_blocking=True) is cpu_batch
    # The loop saw every batch, and the last one ended up on the chosen device.
    assert len(loader) == 4 and labels.shape == (16,) and labels.device.type == device.type


if __name__ == "__main__":
    _check()
