"""Streams order work on the device; events and wait_stream order streams; only synchronize blocks the host."""

# --8<-- [start:demo]
import torch

side = torch.cuda.Stream()
main = torch.cuda.current_stream()
torch.cuda._sleep(100_000_000)  # keep the main stream busy
done = torch.cuda.Event()
done.record(main)
print(done.query())  # never blocks: not reached yet
# > False
done.synchronize()  # blocks the host until it is
print(done.query())
# > True

x = torch.empty(1 << 20, device="cuda")
torch.cuda._sleep(100_000_000)
x.fill_(1.0)  # queued on the main stream, behind the sleep
with torch.cuda.stream(side):
    side.wait_stream(main)  # device-side wait: the host moves on
    total = x.sum()
torch.cuda.synchronize()
print(total.item())
# > 1048576.0
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # without wait_stream the side stream may read x before the fill: a race the sleep makes certain
    y = torch.zeros(1 << 20, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)
    y.fill_(1.0)
    with torch.cuda.stream(side):
        early = y.sum()
    torch.cuda.synchronize()
    assert early.item() == 0.0
    assert total.item() == float(1 << 20)


if __name__ == "__main__":
    _check()
