"""Data larger than RAM: a memory-mapped file read row by row, and shard files streamed one per worker."""

# --8<-- [start:memmap]
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class MemmapRows(Dataset):
    """Rows of a float32 matrix on disk; a batch reads only its pages."""

    def __init__(self, path, shape):
        self.path, self.shape = path, shape
        # opened lazily, by the process that reads: each worker maps the file
        # itself
        self.rows = None

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, i):
        if self.rows is None:
            self.rows = np.memmap(
                self.path, dtype=np.float32, mode="r", shape=self.shape
            )
        # copy the row out of the read-only mapping
        return torch.from_numpy(self.rows[i].copy())


with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "features.f32"
    # in real life: written once, offline
    writer = np.memmap(path, dtype=np.float32, mode="w+", shape=(1000, 16))
    writer[:] = np.arange(16_000, dtype=np.float32).reshape(1000, 16)
    writer.flush()
    loader = DataLoader(
        MemmapRows(path, (1000, 16)), batch_size=250, num_workers=2
    )
    # four batches of 250 rows, read by two workers
    rows = torch.cat(list(loader))
    print(
        tuple(rows.shape), torch.equal(rows, torch.from_numpy(np.array(writer)))
    )
# > (1000, 16) True
# --8<-- [end:memmap]

del torch  # each section imports its own

# --8<-- [start:shards]
import tempfile
from pathlib import Path

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class ShardStream(IterableDataset):
    """Streams samples from shards; each worker reads whole files in turn."""

    def __init__(self, files):
        self.files = files

    def __iter__(self):
        info = get_worker_info()
        mine = (
            self.files
            if info is None
            else self.files[info.id :: info.num_workers]
        )
        for file in mine:
            yield from torch.load(file)  # a list of samples per shard


with tempfile.TemporaryDirectory() as tmp:
    files = []
    # in real life: many shards of ~100 MB-1 GB, written once, offline
    for shard in range(4):
        files.append(Path(tmp) / f"shard-{shard}.pt")
        torch.save([torch.tensor(shard * 3 + i) for i in range(3)], files[-1])
    seen = [
        int(x)
        for x in DataLoader(ShardStream(files), batch_size=None, num_workers=2)
    ]
print(sorted(seen))  # every sample once, across both workers
# > [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
# --8<-- [end:shards]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pickle
    import warnings

    import numpy as np

    # Nothing was left behind: the temporary directories and their files are gone.
    assert not path.exists() and not any(f.exists() for f in files)
    # The dataset object the workers receive is tiny: a path and a shape, never the data.
    dataset = MemmapRows(Path("features.f32"), (1000, 16))
    assert len(pickle.dumps(dataset)) < 500 and dataset.rows is None
    with tempfile.TemporaryDirectory() as tmp_dir:
        file = Path(tmp_dir) / "m.f32"
        data = np.memmap(file, dtype=np.float32, mode="w+", shape=(4, 2))
        data[:] = np.arange(8, dtype=np.float32).reshape(4, 2)
        data.flush()
        rows = MemmapRows(file, (4, 2))
        assert rows[3].tolist() == [6.0, 7.0] and isinstance(rows.rows, np.memmap)
        # Why the .copy(): a read-only mapping is not writable, and torch.from_numpy warns about that.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.from_numpy(rows.rows[0])
        assert any("not writable" in str(w.message) for w in caught)
        del data, rows
    # Shards: the order interleaves workers (worker 0 reads shards 0 and 2, worker 1 reads 1 and 3).
    assert seen == [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]
    # In-process, the stream reads every shard in order.
    with tempfile.TemporaryDirectory() as tmp_dir:
        shard_files = [Path(tmp_dir) / f"s{k}.pt" for k in range(2)]
        for k, file in enumerate(shard_files):
            torch.save([torch.tensor(k)], file)
        assert [int(x) for x in ShardStream(shard_files)] == [0, 1]


if __name__ == "__main__":
    _check()
