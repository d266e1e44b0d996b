"""DistributedSampler: disjoint shards per rank, a new shuffle only after set_epoch, padding or dropping the rest."""

# --8<-- [start:shards]
from torch.utils.data import DistributedSampler

# any map-style data set: the sampler only deals in indices
data = list(range(10))
# in a job: from the process group
samplers = [DistributedSampler(data, num_replicas=2, rank=r) for r in (0, 1)]
for epoch in range(2):
    print(f"epoch {epoch}:", [list(s) for s in samplers])
# > epoch 0: [[4, 7, 3, 0, 6], [1, 5, 9, 8, 2]]
# > epoch 1: [[4, 7, 3, 0, 6], [1, 5, 9, 8, 2]]
for epoch in range(2):
    for s in samplers:
        # the shuffle is seeded with seed + epoch, identically on every rank
        s.set_epoch(epoch)
    print(f"epoch {epoch}:", [list(s) for s in samplers])
# > epoch 0: [[4, 7, 3, 0, 6], [1, 5, 9, 8, 2]]
# > epoch 1: [[5, 1, 0, 9, 7], [6, 2, 8, 3, 4]]
# --8<-- [end:shards]

shards_samplers = samplers

# --8<-- [start:uneven]
from torch.utils.data import DataLoader, DistributedSampler

data = list(range(9))  # 9 samples do not split evenly over 2 ranks

def shards(**options):
    return [list(DistributedSampler(data, num_replicas=2, rank=r,
                                    shuffle=False, **options))
            for r in (0, 1)]


padded, dropped = shards(), shards(drop_last=True)
# default: pad by repeating indices from the start, so every rank gets 5
print(padded)
# > [[0, 2, 4, 6, 8], [1, 3, 5, 7, 0]]
print(dropped)  # drop_last=True: drop the tail, so every rank gets 4
# > [[0, 2, 4, 6], [1, 3, 5, 7]]
try:
    sampler = DistributedSampler(data, num_replicas=2, rank=0)
    DataLoader(data, batch_size=2, sampler=sampler, shuffle=True)
except ValueError as err:
    print(err)  # the sampler shuffles; the loader must not
# > sampler option is mutually exclusive with shuffle
# --8<-- [end:uneven]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch

    # Each epoch the two shards are disjoint and together cover the data set exactly once.
    for epoch in range(5):
        for s in shards_samplers:
            s.set_epoch(epoch)
        rank0, rank1 = (list(s) for s in shards_samplers)
        assert not set(rank0) & set(rank1) and sorted(rank0 + rank1) == list(range(10))
    # Without set_epoch, a fresh sampler replays the same order every epoch; with it, epochs differ.
    fresh = DistributedSampler(list(range(10)), num_replicas=2, rank=0)
    assert list(fresh) == list(fresh)
    orders = []
    for epoch in range(3):
        fresh.set_epoch(epoch)
        orders.append(list(fresh))
    assert len({tuple(o) for o in orders}) == 3
    # The order does not depend on torch's global RNG: only on seed + epoch (so every rank agrees).
    torch.manual_seed(123)
    other = DistributedSampler(list(range(10)), num_replicas=2, rank=0)
    other.set_epoch(2)
    assert list(other) == orders[2]
    # Padding duplicates sample 0 (it is seen twice per epoch); drop_last loses sample 8.
    assert sorted(padded[0] + padded[1]) == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert sorted(dropped[0] + dropped[1]) == list(range(8))
    assert len(DistributedSampler(data, num_replicas=2, rank=0)) == 5
    assert len(DistributedSampler(data, num_replicas=2, rank=0, drop_last=True)) == 4


if __name__ == "__main__":
    _check()
