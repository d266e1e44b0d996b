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
def _check() -> None:
    import subprocess
    import sys

    assert grown >= 128 and len(scores) == 16
    # With a low limit on open files, the buggy loop crashes: run it in a child process.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (96, 96))\n"
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "ds = [{f'f{k}': torch.full((3,), float(i)) for k in range(8)} for i in range(64)]\n"
        "cache = [b for b in DataLoader(ds, batch_size=4, num_workers=2)]\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Too many open files" in done.stderr, done.stderr[-2000:]


if __name__ == "__main__":
    _check()
