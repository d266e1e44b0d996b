"""C31 · Split indices across ranks like DistributedSampler."""

# --8<-- [start:prompt]
import math

import torch


def shard_indices(n, world_size, rank, epoch, seed=0, shuffle=True,
                  drop_last=False):
    """The dataset indices this rank reads, as DistributedSampler gives them.

    One permutation of range(n) (torch.randperm with a generator seeded
    seed + epoch; range(n) itself when shuffle is False), padded by
    repeating it from the start to a multiple of world_size, or cut down
    to one when drop_last; then every world_size-th index from rank.
    Returns a list of ints.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = shard_indices


# --8<-- [start:wrong]
import math

import torch


def shard_indices(n, world_size, rank, epoch, seed=0, shuffle=True,
                  drop_last=False):
    if shuffle:
        g = torch.Generator().manual_seed(seed + epoch + rank)
        order = torch.randperm(n, generator=g).tolist()
    else:
        order = list(range(n))
    if drop_last:
        total = n // world_size * world_size
        order = order[:total]
    else:
        total = math.ceil(n / world_size) * world_size
        pad = total - n
        order += (order * math.ceil(pad / max(n, 1)))[:pad]
    return order[rank:total:world_size]
# --8<-- [end:wrong]


_wrong = shard_indices
WRONG_MESSAGE = 'every rank draws the same permutation (seed + epoch)'


# --8<-- [start:solution]
import math

import torch


def shard_indices(n, world_size, rank, epoch, seed=0, shuffle=True,
                  drop_last=False):
    if shuffle:
        g = torch.Generator().manual_seed(seed + epoch)
        order = torch.randperm(n, generator=g).tolist()
    else:
        order = list(range(n))
    if drop_last:
        total = n // world_size * world_size
        order = order[:total]
    else:
        total = math.ceil(n / world_size) * world_size
        pad = total - n
        order += (order * math.ceil(pad / max(n, 1)))[:pad]
    return order[rank:total:world_size]
# --8<-- [end:solution]


_solution = shard_indices


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, = (_KIT[n] for n in ("call",))


def grade(shard_indices):
    from torch.utils.data.distributed import DistributedSampler

    def fail(what, msg):
        raise AssertionError(f"C31 · {what}: {msg}")

    # the ranks together: every index exactly once when n divides evenly
    shards = [call(shard_indices, 12, 3, r, 0) for r in range(3)]
    seen = [i for s in shards for i in s]
    if sorted(seen) != list(range(12)):
        twice = sorted({i for i in seen if seen.count(i) > 1})
        missing = sorted(set(range(12)) - set(seen))
        where = [r for r, s in enumerate(shards) if twice and twice[0] in s]
        if twice and missing:
            fail("partition", f"ranks {where[0]} and {where[1]} both got index {twice[0]}, and index {missing[0]} went "
                 "nowhere: every rank draws the same permutation (seed + epoch) and takes its own slice")
        fail("partition", f"12 indices over 3 ranks: the ranks got {shards}; together they must cover 0..11 once")
    if call(shard_indices, 10, 2, 0, 0) == call(shard_indices, 10, 2, 0, 1):
        fail("epochs", "epochs 0 and 1 gave the same order: seed the permutation with seed + epoch")
    for n in (0, 1, 10, 11):
        for world in range(1, 6):
            for drop_last in (False, True):
                for shuffle in (True, False):
                    for epoch in (0, 2):
                        for rank in range(world):
                            ref = DistributedSampler(list(range(n)), num_replicas=world, rank=rank, shuffle=shuffle,
                                                     seed=3, drop_last=drop_last)
                            ref.set_epoch(epoch)
                            got = call(shard_indices, n, world, rank, epoch, 3, shuffle, drop_last)
                            if not isinstance(got, list) or got != list(ref):
                                fail(f"n={n}, world_size={world}, rank={rank}, epoch={epoch}, shuffle={shuffle}, "
                                     f"drop_last={drop_last}", f"got {got}, DistributedSampler gives {list(ref)}")
    return "C31 passes: equals DistributedSampler for n 0-11, 1-5 ranks, drop_last, shuffle and epochs"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C31 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt's only bug is the seed: without shuffling it is right
    assert _wrong(10, 3, 1, 0, shuffle=False, drop_last=True) == _solution(10, 3, 1, 0, shuffle=False, drop_last=True)

    # mutants of the reference, one per remaining failure, each with its exact message
    def changed(change):
        def attempt(n, world_size, rank, epoch, seed=0, shuffle=True, drop_last=False):
            return change(n, world_size, rank, epoch, seed, shuffle, drop_last)

        return attempt

    for change, message in [
        (lambda n, w, r, e, *rest: _solution(n, 1, 0, e, *rest), r"^C31 · partition: 12 indices over 3 ranks: the "),
        (lambda n, w, r, e, *rest: _solution(n, w, r, 0, *rest), r"^C31 · epochs: epochs 0 and 1 gave the same order"),
        (lambda *args: sorted(_solution(*args)), r"^C31 · n=10, world_size=1, rank=0, epoch=0, shuffle=True, drop_"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(changed(change))


if __name__ == "__main__":
    _check()
