"""The worker_init_fn fix for an RNG object, and its trap: info.dataset is the object the loader was given."""

# --8<-- [start:demo]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset, get_worker_info


class Jitter(Dataset):
    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return int(self.rng.integers(1000))


def reseed(worker_id):
    info = get_worker_info()
    # info.dataset: what the loader was given
    info.dataset.rng = np.random.default_rng(info.seed)


dataset = Jitter()
# a Subset is what random_split returns
for data in (dataset, Subset(dataset, range(4))):
    generator = torch.Generator().manual_seed(0)
    loader = DataLoader(
        data,
        batch_size=2,
        num_workers=2,
        worker_init_fn=reseed,
        generator=generator,
    )
    print(type(data).__name__, [batch.tolist() for batch in loader])
# > Jitter [[525, 776], [242, 652]]
# > Subset [[850, 636], [850, 636]]
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The fix works on the dataset itself: the two workers draw different numbers, reproducibly.
    generator = torch.Generator().manual_seed(0)
    fixed = DataLoader(Jitter(), batch_size=2, num_workers=2, worker_init_fn=reseed, generator=generator)
    batches = [batch.tolist() for batch in fixed]
    assert batches == [[525, 776], [242, 652]]
    # Wrapped, the reseed set .rng on the Subset, not on the Jitter inside it. Both workers draw the parent's
    # seed-0 stream, whatever the base seed: iterating the shown loader again (a new base seed) repeats it.
    assert isinstance(loader.dataset, Subset)
    assert [batch.tolist() for batch in loader] == [[850, 636], [850, 636]]
    assert [850, 636] == np.random.default_rng(0).integers(1000, size=2).tolist()

    # persistent_workers=True changes the symptom, not the bug: each worker's copy now moves on, so the
    # epochs differ, but worker 0 and worker 1 still draw the same numbers.
    persistent = DataLoader(Jitter(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [batch.tolist() for batch in persistent]
    second = [batch.tolist() for batch in persistent]
    assert first[0] == first[1] and second[0] == second[1] and first != second


if __name__ == "__main__":
    _check()
