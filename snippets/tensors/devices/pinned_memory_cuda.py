"""Pinned host memory lets a host-to-device copy run asynchronously; a device-to-host non_blocking copy needs a sync."""

# --8<-- [start:demo]
import torch

# 128 MB of ordinary, pageable host memory
pageable = torch.randn(32 * 1024 * 1024)
# a page-locked copy the GPU can read directly (DMA)
pinned = pageable.pin_memory()
print(pageable.is_pinned(), pinned.is_pinned())
# > False True

x = torch.randn(8192, 8192, device="cuda")
x @ x  # warm-up
torch.cuda.synchronize()
stream = torch.cuda.current_stream()
for _ in range(10):
    x @ x  # keep the GPU busy for a while
# queued behind the matmuls; Python moves on at once
on_gpu = pinned.to("cuda", non_blocking=True)
print(stream.query())
# > False
# non_blocking=False: returns only when this copy, and all before it, is done
blocking = pageable.to("cuda")
print(stream.query())
# > True

# lands in pinned host memory, asynchronously
back = (on_gpu * 2).to("cpu", non_blocking=True)
torch.cuda.synchronize()  # only now is `back` safe to read
print(torch.equal(back, pageable * 2), torch.equal(on_gpu, blocking))
# > True True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.utils.data import DataLoader, TensorDataset

    assert pinned.is_pinned() and not pageable.is_pinned()
    assert pinned.data_ptr() != pageable.data_ptr() and torch.equal(pinned, pageable)  # pin_memory() copies
    # A non_blocking device-to-host copy allocates its destination in pinned memory.
    assert back.is_pinned()
    assert torch.equal(back, pageable * 2)

    # Asynchrony again, with a plain copy_ into a preallocated device buffer.
    buffer = torch.empty_like(pinned, device="cuda")
    for _ in range(10):
        x @ x
    buffer.copy_(pinned, non_blocking=True)
    assert not stream.query()
    torch.cuda.synchronize()
    assert torch.equal(buffer, on_gpu)

    # DataLoader(pin_memory=True) hands out pinned batches when a GPU is present.
    loader = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4, pin_memory=True)
    (batch,) = next(iter(loader))
    assert batch.is_pinned()


if __name__ == "__main__":
    _check()
