"""IterableDataset with workers: every worker runs __iter__ on its own copy, so shard with get_worker_info()."""

# --8<-- [start:unsharded]
from torch.utils.data import DataLoader, IterableDataset


class Numbers(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        # each worker runs this on its own copy of the dataset
        return iter(range(self.n))


loader = DataLoader(Numbers(6), batch_size=None, num_workers=2)
print(sorted(loader))  # every item twice
# > [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
# --8<-- [end:unsharded]

# --8<-- [start:sharded]
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class ShardedNumbers(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:  # num_workers=0: the main process reads everything
            return iter(range(self.n))
        # worker k: k, k + W, k + 2W, ...
        return iter(range(info.id, self.n, info.num_workers))


# each item once
print(list(DataLoader(ShardedNumbers(6), batch_size=None, num_workers=2)))
# > [0, 1, 2, 3, 4, 5]
# each worker batches its own shard
print(list(DataLoader(ShardedNumbers(5), batch_size=2, num_workers=2)))
# > [tensor([0, 2]), tensor([1, 3]), tensor([4])]
# --8<-- [end:sharded]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Unsharded: each of the two workers produced the full stream.
    assert sorted(loader) == sorted(list(range(6)) * 2)
    # In-process (num_workers=0) the sharded dataset reads everything once.
    assert list(DataLoader(ShardedNumbers(7), batch_size=None)) == list(range(7))
    # With batching, each worker's last batch may be short: up to num_workers short batches per epoch.
    batches = [b.tolist() for b in DataLoader(ShardedNumbers(8), batch_size=3, num_workers=2)]
    assert batches == [[0, 2, 4], [1, 3, 5], [6], [7]]  # two short batches in one epoch
    # An IterableDataset has no indices: no shuffle, no sampler, and no len() unless it defines one.
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(ShardedNumbers(4), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(ShardedNumbers(4), sampler=[0, 1])
    with pytest.raises(TypeError, match="object of type 'ShardedNumbers' has no len"):
        len(DataLoader(ShardedNumbers(4)))


if __name__ == "__main__":
    _check()
