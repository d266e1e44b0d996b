"""Without record_stream, the caching allocator hands a block back to its stream while another stream still uses it."""

# --8<-- [start:demo]
import torch

side = torch.cuda.Stream()
n = 1 << 20


def run(record):
    x = torch.ones(n, device="cuda")
    old_ptr = x.data_ptr()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # the side stream is busy ...
        y = x * 2  # ... then reads x
    if record:
        x.record_stream(side)  # free only after side's queued work
    del x  # the allocator only knows x's own stream
    z = torch.empty(n, device="cuda")
    z.fill_(-1)  # may overwrite x before side reads it
    torch.cuda.synchronize()
    return z.data_ptr() == old_ptr, y.unique().tolist()


print(run(record=False))  # the block was reused at once
# > (True, [-2.0])
print(run(record=True))
# > (False, [2.0])
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    reused, values = run(record=True)
    assert not reused and values == [2.0]


if __name__ == "__main__":
    _check()
