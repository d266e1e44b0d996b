"""Spot the bug: keeping every worker batch keeps one open file descriptor per tensor, until 'Too many open files'."""

# --8<-- [start:buggy]
import os

import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):  # each sample: a dict of 8 small tensors
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return {f"f{k}": torch.full((3,), float(i)) for k in range(8)}


loader = DataLoader(Records(), batch_size=4, num_workers=2, pin_memory=False)
fds = len(os.listdir("/proc/self/fd"))
cache = []
for batch in loader:
    score = sum(t.sum() for t in batch.values())
    cache.append(batch)
print(len(os.listdir("/proc/self/fd")) - fds >= 16 * 8)
# > True
# --8<-- [end:buggy]

grown = len(os.listdir("/proc/self/fd")) - fds
cache.clear()
assert torch.is_tensor(score)

# --8<-- [start:fixed]
import os

import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):  # each sample: a dict of 8 small tensors
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return {f"f{k}": torch.full((3,), float(i)) for k in range(8)}


loader = DataLoader(Records(), batch_size=4, num_workers=2, pin_memory=False)
fds = len(os.listdir("/proc/self/fd"))
scores = []
for batch in loader:
    score = sum(t.sum() for t in batch.values())
    scores.append(score.item())  # keep numbers, not the shared tensors
print(len(os.listdir("/proc/self/fd")) - fds < 16)
# > True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _load_all(limit_above_open: int) -> str | int:
    """The buggy loop (every batch kept) under a soft open-files limit this many above what is open now;
    the loader's error if it dies, else the number of batches kept. The limit is restored, the workers stopped."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    opened = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(opened + limit_above_open, hard), hard))
    batches = iter(DataLoader(Records(), batch_size=4, num_workers=2))
    try:
        kept = list(batches)
    except RuntimeError as error:
        return str(error)
    finally:
        del batches  # shuts the workers down
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return len(kept)


def _check() -> None:
    assert grown >= 128 and len(scores) == 16
    # With a low limit on open files, the buggy loop crashes with the message the page quotes; with room
    # for its 128 descriptors, the same loop finishes. The limit is put back each time.
    import resource

    limit = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert _load_all(48).startswith("Too many open files.")
    assert _load_all(256) == 16
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == limit


if __name__ == "__main__":
    _check()
