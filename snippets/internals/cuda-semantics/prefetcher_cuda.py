"""Spot the bug: a side-stream prefetcher that neither orders the streams nor tells the allocator about them."""

# --8<-- [start:buggy]
import torch


class Prefetcher:
    def __init__(self, batches):
        self.batches = iter(batches)
        self.copy_stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        cpu = next(self.batches, None)
        with torch.cuda.stream(self.copy_stream):
            self.ready = None if cpu is None else cpu.to(
                "cuda", non_blocking=True)

    def __iter__(self):
        return self

    def __next__(self):
        batch = self.ready
        if batch is None:
            raise StopIteration
        self.preload()
        return batch
# --8<-- [end:buggy]


Buggy = Prefetcher
assert torch.cuda.is_available()  # the GPU lane only

# --8<-- [start:fixed]
import torch


class Prefetcher:
    def __init__(self, batches):
        self.batches = iter(batches)
        self.copy_stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        cpu = next(self.batches, None)
        with torch.cuda.stream(self.copy_stream):
            self.ready = None if cpu is None else cpu.to(
                "cuda", non_blocking=True)

    def __iter__(self):
        return self

    def __next__(self):
        main = torch.cuda.current_stream()
        main.wait_stream(self.copy_stream)  # the copy is done first
        batch = self.ready
        if batch is None:
            raise StopIteration
        batch.record_stream(main)  # used on main: free it after main
        self.preload()
        return batch
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _sums(prefetcher_class) -> list[float]:
    class Slow(prefetcher_class):  # a busy copy stream makes the race certain
        def preload(self):
            with torch.cuda.stream(self.copy_stream):
                torch.cuda._sleep(50_000_000)
            super().preload()

    cpu = [torch.full((1 << 20,), float(i)).pin_memory() for i in range(1, 11)]
    return [batch.sum().item() for batch in Slow(cpu)]


def _check() -> None:
    expected = [float(i * (1 << 20)) for i in range(1, 11)]
    assert _sums(Prefetcher) == expected
    assert _sums(Buggy) != expected  # the consumer read batches before their copies finished


if __name__ == "__main__":
    _check()
