"""DataLoader internals: index queues, shared-memory batches, one file descriptor per live tensor."""

# --8<-- [start:demo]
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.arange(64.0).reshape(32, 2), torch.arange(32))
it = iter(DataLoader(ds, batch_size=1, num_workers=2))
print(type(it))
# > <class 'torch.utils.data.dataloader._MultiProcessingDataLoaderIter'>
print(len(it._index_queues), it._tasks_outstanding)  # prefetch_factor 2 x 2
# > 2 4
x, y = next(it)
print(x.is_shared(), torch.multiprocessing.get_sharing_strategy())
# > True file_descriptor
del it


def open_fds():
    return len(os.listdir("/proc/self/fd"))


kept = list(DataLoader(ds, batch_size=1, num_workers=2))  # 32 batches
held = open_fds()
del kept  # 64 tensors
print(held - open_fds() >= 64)  # each one held an fd
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import gc
    import inspect

    class _Pids(torch.utils.data.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return torch.tensor([os.getpid()])

    # in the main process nothing is shared
    x0, _ = next(iter(DataLoader(ds, batch_size=1, num_workers=0)))
    assert not x0.is_shared()
    # samples are made in other processes
    pids = {int(p) for (p,) in DataLoader(_Pids(), batch_size=1, num_workers=2)}
    assert os.getpid() not in pids and len(pids) == 2
    # a live batch holds its fds: keeping one keeps them
    one = list(DataLoader(ds, batch_size=1, num_workers=2))[:1]
    gc.collect()  # no garbage left whose descriptors could close during the count
    with_one = open_fds()
    one.clear()
    assert with_one - open_fds() == 2  # x and y
    # under file_system, a batch holds no fd
    try:
        torch.multiprocessing.set_sharing_strategy("file_system")
        start = open_fds()
        held = list(DataLoader(ds, batch_size=1, num_workers=2))
        assert open_fds() - start < 16 and len(held) == 32
    finally:
        torch.multiprocessing.set_sharing_strategy("file_descriptor")
    assert "in_order" in inspect.signature(DataLoader).parameters


if __name__ == "__main__":
    _check()
