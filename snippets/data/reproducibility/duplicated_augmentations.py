"""Spot the bug: an RNG object made in Dataset.__init__ is copied into every worker, so workers repeat each other."""

# --8<-- [start:buggy]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RandomCrops(Dataset):
    def __init__(self, images, seed=0):
        self.images = images
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        # a random 8x8 crop of a 32x32 image
        top, left = self.rng.integers(0, 25, size=2)
        flip = self.rng.random() < 0.5
        crop = self.images[i, :, top : top + 8, left : left + 8]
        crop = crop.flip(-1) if flip else crop
        return crop, torch.tensor([top, left, flip])


images = torch.rand(8, 3, 32, 32)
loader = DataLoader(RandomCrops(images), batch_size=2, num_workers=2)
for epoch in range(2):
    # [top, left, flip] of each sample, batch by batch
    params = [p.tolist() for _, p in loader]
    for batch in params:
        print(f"epoch {epoch}:", batch)
# > epoch 0: [[21, 15, 1], [7, 1, 1]]
# > epoch 0: [[21, 15, 1], [7, 1, 1]]
# > epoch 0: [[4, 20, 0], [12, 15, 0]]
# > epoch 0: [[4, 20, 0], [12, 15, 0]]
# > epoch 1: [[21, 15, 1], [7, 1, 1]]
# > epoch 1: [[21, 15, 1], [7, 1, 1]]
# > epoch 1: [[4, 20, 0], [12, 15, 0]]
# > epoch 1: [[4, 20, 0], [12, 15, 0]]
# --8<-- [end:buggy]

Buggy, buggy_params = RandomCrops, params
unused_state = np.random.default_rng(0).bit_generator.state  # what a generator seeded with 0 holds before any draw

# --8<-- [start:fixed]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class RandomCrops(Dataset):
    def __init__(self, images, seed=0):
        self.images = images
        self.seed, self.rng, self.rng_seed = seed, None, None

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        info = get_worker_info()  # None in the main process
        # a worker's seed: base_seed + worker id
        seed = self.seed if info is None else info.seed
        # the first item in this process: start its own stream
        if self.rng_seed != seed:
            self.rng, self.rng_seed = np.random.default_rng(seed), seed
        # a random 8x8 crop of a 32x32 image
        top, left = self.rng.integers(0, 25, size=2)
        flip = self.rng.random() < 0.5
        crop = self.images[i, :, top : top + 8, left : left + 8]
        crop = crop.flip(-1) if flip else crop
        return crop, torch.tensor([top, left, flip])


images = torch.rand(8, 3, 32, 32)
# base_seed is drawn from it: the run is reproducible
generator = torch.Generator().manual_seed(0)
loader = DataLoader(
    RandomCrops(images), batch_size=2, num_workers=2, generator=generator
)
for epoch in range(2):
    params = [p.tolist() for _, p in loader]
    for batch in params:
        print(f"epoch {epoch}:", batch)
# > epoch 0: [[13, 19, 0], [21, 8, 1]]
# > epoch 0: [[6, 16, 1], [20, 23, 0]]
# > epoch 0: [[9, 7, 1], [23, 21, 1]]
# > epoch 0: [[18, 2, 0], [12, 19, 1]]
# > epoch 1: [[11, 17, 0], [14, 4, 1]]
# > epoch 1: [[18, 0, 0], [15, 1, 1]]
# > epoch 1: [[1, 4, 0], [4, 21, 1]]
# > epoch 1: [[19, 21, 1], [21, 17, 1]]
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pickle
    import random

    class Tagged(Dataset):
        """Adds the id of the worker that produced each sample (-1: the main process)."""

        def __init__(self, inner):
            self.inner = inner

        def __len__(self):
            return len(self.inner)

        def __getitem__(self, i):
            crop, params = self.inner[i]
            info = get_worker_info()
            return crop, torch.cat([params, torch.tensor([-1 if info is None else info.id])])

    def run(dataset, **kwargs) -> tuple[list[list[list[int]]], list[int]]:
        """One epoch: each batch's [top, left, flip] rows, and the worker each batch came from."""
        batches = [p.tolist() for _, p in DataLoader(Tagged(dataset), batch_size=2, **kwargs)]
        return [[row[:3] for row in batch] for batch in batches], [batch[0][3] for batch in batches]

    def mirrored(batches: list[list[list[int]]]) -> bool:
        """Batches 0/1 and 2/3 (worker 0 and worker 1) carry the same augmentations."""
        return batches[0] == batches[1] and batches[2] == batches[3]

    # The bug: the batches of worker 0 and worker 1 carry identical augmentations, and a new epoch (here a
    # new iterator over the same dataset) replays them, because the parent's generator never moves.
    buggy = Buggy(images)
    augs, workers = run(buggy, num_workers=2)
    assert workers == [0, 1, 0, 1] and mirrored(augs)
    assert augs == buggy_params
    assert buggy.rng.bit_generator.state == unused_state
    # The crop really is the crop the params describe.
    crop, crop_params = Buggy(images)[3]
    top, left, flip = crop_params.tolist()
    expected = images[3, :, top : top + 8, left : left + 8]
    torch.testing.assert_close(crop, expected.flip(-1) if flip else expected)
    # With spawn or forkserver the dataset is pickled into each worker: the generator travels with its state,
    # so the bug does not depend on the start method.
    copy = pickle.loads(pickle.dumps(buggy.rng))
    assert copy.integers(0, 1_000_000, 4).tolist() == buggy.rng.integers(0, 1_000_000, 4).tolist()
    # num_workers=0 hides the bug (one process, one stream) without fixing it: it gives up parallel loading.
    single = Buggy(images)
    (s1, w1), (s2, _) = run(single), run(single)
    assert w1 == [-1] * 4 and not mirrored(s1) and s1 != s2

    # The old recipe (seed_worker reseeding global NumPy and `random`, plus a seeded generator) never
    # touches the object: the duplicates, and the very same augmentations, stay.
    def seed_worker(worker_id: int) -> None:
        worker_seed = torch.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)

    old, _ = run(Buggy(images), num_workers=2, worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(0))
    assert old == buggy_params

    # The fix: no mirroring, a new stream every epoch (the shown epochs differ), reproducible from the
    # generator: epoch 0 of the shown run is replayed exactly by a fresh generator with the same seed.
    epoch0 = [[[13, 19, 0], [21, 8, 1]], [[6, 16, 1], [20, 23, 0]], [[9, 7, 1], [23, 21, 1]], [[18, 2, 0], [12, 19, 1]]]
    assert not mirrored(params) and params != epoch0
    # The lazy pattern survives its two traps in the same run: the parent drew first (its stream is not
    # inherited, because a worker's seed differs) and the dataset is wrapped (a Subset, as random_split makes).
    touched = RandomCrops(images)
    touched[0]
    assert touched.rng_seed == 0
    fixed, workers = run(
        torch.utils.data.Subset(touched, range(8)), num_workers=2, generator=torch.Generator().manual_seed(0)
    )
    assert workers == [0, 1, 0, 1] and not mirrored(fixed) and fixed == epoch0
    # num_workers=0: one stream, seeded from `seed`, that moves on from epoch to epoch.
    main = RandomCrops(images)
    (m1, _), (m2, _) = run(main), run(main)
    assert m1 != m2 and m1 == run(RandomCrops(images))[0] and not mirrored(m1)


if __name__ == "__main__":
    _check()
