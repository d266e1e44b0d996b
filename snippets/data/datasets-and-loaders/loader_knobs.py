"""The DataLoader knobs: workers, prefetching, persistent workers, pinned memory, drop_last, non_blocking copies."""

# --8<-- [start:demo]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
dataset = TensorDataset(torch.randn(100, 8), torch.randint(0, 2, (100,)))
loader = DataLoader(
    dataset,
    batch_size=32,
    shuffle=True,
    # worker processes run __getitem__ and collate_fn in parallel
    num_workers=2,
    # batches each worker keeps ready (the default once num_workers > 0)
    prefetch_factor=2,
    # keep the workers, and their copies of the dataset, between epochs
    persistent_workers=True,
    # page-locked batches, so the copy below can be asynchronous
    pin_memory=device.type != "cpu",
    drop_last=True,  # 100 = 3 * 32 + 4: the ragged batch of 4 is dropped
)
for _ in range(2):  # two epochs
    for x, y in loader:
        # returns at once from pinned memory; a no-op on the CPU
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
print(len(loader), tuple(x.shape), x.device.type == device.type)
# > 3 (32, 8) True
# --8<-- [end:demo]

# What the checks need from the persistent loader, read now: the loader itself is released here, so its
# workers shut down at once rather than whenever a garbage collection reaches this module's namespace.
knobs_batches, knobs_drop_last, knobs_x = len(loader), loader.drop_last, x
knobs_kept_workers = loader._iterator is not None  # persistent workers: the iterator stays on the loader
del loader

# --8<-- [start:starved]
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def timed(loader):
    """Yield each batch with the seconds the training loop waited for it."""
    batches = iter(loader)
    while True:
        start = time.perf_counter()
        try:
            batch = next(batches)
        except StopIteration:
            return
        yield batch, time.perf_counter() - start


loader = DataLoader(
    TensorDataset(torch.randn(64, 8)), batch_size=16, num_workers=2
)
model = torch.nn.Linear(8, 1)
waited = total = 0.0
start = time.perf_counter()
for (x,), wait in timed(loader):
    model(x).sum().backward()  # on a GPU, synchronize before reading the clock
    waited += wait
total = time.perf_counter() - start
# near 1: the model waits for data; near 0: the loader keeps up
data_share = waited / total
# --8<-- [end:starved]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import os

    import pytest
    from torch.utils.data import Dataset

    class Pid(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.getpid()

    def worker_pids(loader: DataLoader) -> set[int]:
        return {int(pid) for batch in loader for pid in batch}

    # persistent_workers=True: the same two processes serve both epochs. Without it, new ones each epoch.
    kept = DataLoader(Pid(), batch_size=2, num_workers=2, persistent_workers=True)
    first = worker_pids(kept)
    assert len(first) == 2 and os.getpid() not in first and worker_pids(kept) == first
    fresh = DataLoader(Pid(), batch_size=2, num_workers=2)
    assert worker_pids(fresh).isdisjoint(worker_pids(fresh))
    # Both knobs need workers; prefetch_factor defaults to 2 per worker.
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(dataset, persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(dataset, prefetch_factor=4)
    assert DataLoader(dataset, num_workers=2).prefetch_factor == 2 and DataLoader(dataset).prefetch_factor is None
    # More workers than the cores PyTorch counts (here: pretend there is one) is a UserWarning at construction.
    from unittest import mock

    suggested = "Our suggested max number of worker in current system is 1, which is smaller than what"
    with mock.patch("torch._utils.cpu_count", return_value=1), pytest.warns(UserWarning, match=suggested):
        DataLoader(dataset, num_workers=2)
    # drop_last: 3 full batches instead of 3 + a batch of 4; the ragged one is what it removes.
    assert len(DataLoader(dataset, batch_size=32)) == 4 and knobs_batches == 3 and knobs_drop_last
    assert [len(b[0]) for b in DataLoader(dataset, batch_size=32)][-1] == 4
    assert knobs_kept_workers
    assert knobs_x.device.type == device.type
    # Why BatchNorm cares: a training batch of one sample has no variance to normalize with.
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        torch.nn.BatchNorm1d(8)(torch.randn(1, 8))
    # On the CPU, .to(..., non_blocking=True) returns the tensor itself.
    t = torch.randn(2)
    assert t.to("cpu", non_blocking=True) is t

    # The timing helper yields every batch; the wait for a batch that sleeps in __getitem__ is at least the sleep.
    assert 0.0 <= data_share <= 1.0 and waited >= 0.0

    class Slow(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            time.sleep(0.01)
            return i

    waits = [wait for _, wait in timed(DataLoader(Slow(), batch_size=2))]
    assert len(waits) == 2 and all(w >= 0.02 for w in waits)


    # Drift alarm for the follow-up: DataLoader(in_order=False) hands batches over as workers finish
    # them. Batch 0 blocks until the main process has received some other batch, so it can only come
    # second; in sampler order (in_order=True) it would stall until its 30 s safety deadline instead.
    import pathlib
    import tempfile

    class Gate(Dataset):
        def __init__(self, flag: str) -> None:
            self.flag = flag

        def __len__(self):
            return 2

        def __getitem__(self, i):
            deadline = time.monotonic() + 30
            while True:  # every line runs for every item (coverage counts worker lines)
                time.sleep(0.01)
                if i != 0 or os.path.exists(self.flag) or time.monotonic() > deadline:
                    return i

    with tempfile.TemporaryDirectory() as tmp:
        flag = os.path.join(tmp, "main_got_a_batch")
        order = []
        for batch in DataLoader(Gate(flag), batch_size=1, num_workers=2, in_order=False):
            order.append(int(batch))
            pathlib.Path(flag).touch()
    assert order == [1, 0]
    # The default keeps sampler order whatever the workers' speed.
    assert DataLoader(dataset).in_order is True
    assert [int(b) for b in DataLoader(range(6), batch_size=1, num_workers=2)] == list(range(6))

if __name__ == "__main__":
    _check()
