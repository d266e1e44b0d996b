"""A non_blocking copy from pinned memory reads its source later: overwriting the source races the DMA."""

# --8<-- [start:demo]
import torch

n = 1 << 22
src = torch.arange(n, dtype=torch.float32).pin_memory()
torch.cuda._sleep(100_000_000)  # the copy waits behind this
d = src.to("cuda", non_blocking=True)  # returns at once
src.zero_()  # the DMA has not read src yet
torch.cuda.synchronize()
print(d.sum().item())  # the copy saw zeros
# > 0.0

src = torch.arange(n, dtype=torch.float32).pin_memory()
torch.cuda._sleep(100_000_000)
d = src.to("cuda", non_blocking=True)
copied = torch.cuda.Event()
copied.record()
copied.synchronize()  # wait for the copy, then reuse the buffer
src.zero_()
print(torch.equal(d.cpu(), torch.arange(n, dtype=torch.float32)))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # D2H non_blocking: the host result is filled later
    g = torch.ones(n, device="cuda")
    torch.cuda._sleep(100_000_000)
    host = g.to("cpu", non_blocking=True)
    assert not torch.cuda.current_stream().query()
    torch.cuda.synchronize()
    assert host.sum().item() == float(n)


if __name__ == "__main__":
    _check()
