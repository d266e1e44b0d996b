"""torch.cuda.set_sync_debug_mode reports the calls that make the host wait for the GPU."""

# --8<-- [start:demo]
import warnings

import torch

x = torch.randn(4096, 4096, device="cuda")
mask = x > 0


def syncs(op):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op()
    return any("synchronizing CUDA operation" in str(w.message) for w in caught)


# warn on every implicit host-device synchronization
torch.cuda.set_sync_debug_mode("warn")
print(syncs(lambda: x @ x), syncs(lambda: x.argmax()))
# > False False
print(syncs(lambda: torch.where(mask, x, 0.0)))
# > False
print(syncs(lambda: x.sum().item()), syncs(lambda: bool(mask.any())))
# > True True
print(syncs(lambda: x[mask]))
# > True
print(syncs(lambda: mask.nonzero()), syncs(lambda: x.cpu()))
# > True True
torch.cuda.set_sync_debug_mode("default")
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert torch.cuda.get_sync_debug_mode() == 0
    stream = torch.cuda.current_stream()
    try:
        torch.cuda.set_sync_debug_mode("error")  # now a sync raises instead of warning
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            x.sum().item()
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            x[mask]
        # Sync-free alternatives: a fixed-size nonzero, and a masked reduction that stays on the GPU.
        torch.nonzero_static(mask.flatten(), size=16)
        masked_mean = torch.where(mask, x, 0.0).sum() / mask.sum()
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert masked_mean.device.type == "cuda"

    # .item() waits for everything queued before it: afterwards the stream is idle.
    big = torch.randn(8192, 8192, device="cuda")
    big @ big  # warm-up
    torch.cuda.synchronize()
    for _ in range(10):
        big @ big  # a tenth of a second of GPU work, queued in microseconds
    assert not stream.query()
    value = big.sum().item()
    assert stream.query() and isinstance(value, float)


if __name__ == "__main__":
    _check()
