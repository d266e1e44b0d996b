"""How DataLoader workers are seeded since PyTorch 1.9: torch, random and global NumPy, per worker and per epoch."""

# --8<-- [start:demo]
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class GlobalDraws(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        worker = get_worker_info().id
        return (
            worker,
            np.random.randint(1000),
            random.randrange(1000),
            torch.randint(1000, ()).item(),
        )


# only to make the printed numbers reproducible
generator = torch.Generator().manual_seed(0)
loader = DataLoader(
    GlobalDraws(), batch_size=None, num_workers=2, generator=generator
)
for epoch in range(2):
    draws = list(loader)
    for row in draws:  # [worker, numpy, random, torch] for each sample
        print(f"epoch {epoch}:", row)
# > epoch 0: [0, 522, 218, 906]
# > epoch 0: [1, 234, 791, 724]
# > epoch 0: [0, 297, 818, 10]
# > epoch 0: [1, 407, 832, 2]
# > epoch 1: [0, 68, 775, 226]
# > epoch 1: [1, 142, 939, 932]
# > epoch 1: [0, 784, 223, 483]
# > epoch 1: [1, 434, 10, 614]
# --8<-- [end:demo]

demo_draws = draws
del np, get_worker_info  # each section imports its own

# --8<-- [start:constant_init]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NumpyDraws(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return get_worker_info().id, np.random.randint(1000)


def worker_init_fn(worker_id):
    np.random.seed(42)  # the bug: the same constant in every worker


loader = DataLoader(
    NumpyDraws(), batch_size=None, num_workers=2, worker_init_fn=worker_init_fn
)
draws = list(loader)  # [worker, numpy] for each sample
print(draws)  # worker 1 repeats worker 0
# > [[0, 102], [1, 102], [0, 435], [1, 435]]
# --8<-- [end:constant_init]

constant_draws = draws
del np, get_worker_info

# --8<-- [start:reseed_each_epoch]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NumpyDraws(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return get_worker_info().id, np.random.randint(1000)


# base_seed comes from torch's global RNG
loader = DataLoader(NumpyDraws(), batch_size=None, num_workers=2)
for epoch in range(2):
    # the bug: "for reproducibility", at the top of every epoch
    torch.manual_seed(0)
    draws = list(loader)
    print(f"epoch {epoch}:", draws)
# > epoch 0: [[0, 522], [1, 234], [0, 297], [1, 407]]
# > epoch 1: [[0, 522], [1, 234], [0, 297], [1, 407]]
# --8<-- [end:reseed_each_epoch]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.utils.data._utils.worker import _generate_state

    # Each iterator draws a new base_seed from the loader's generator (or from torch's global RNG without
    # one). Worker k then seeds `random` and torch with base_seed + k (its info.seed and torch.initial_seed()),
    # and global NumPy with a SeedSequence-style state made from (base_seed, k). The demo's numbers follow.
    g = torch.Generator().manual_seed(0)
    bases = [torch.empty((), dtype=torch.int64).random_(generator=g).item() for _ in range(2)]

    def expected(base: int) -> list[list[int]]:
        """Two draws per worker, replayed from the seeds; the loader interleaves workers 0, 1, 0, 1."""
        rows = {}
        for worker in (0, 1):
            legacy = np.random.RandomState()
            legacy.seed(_generate_state(base, worker))
            py, tg = random.Random(base + worker), torch.Generator().manual_seed(base + worker)
            rows[worker] = [
                [worker, int(legacy.randint(1000)), py.randrange(1000), torch.randint(1000, (), generator=tg).item()]
                for _ in range(2)
            ]
        return [rows[0][0], rows[1][0], rows[0][1], rows[1][1]]

    class WithSeeds(GlobalDraws):
        def __getitem__(self, i):
            info = get_worker_info()
            return [*super().__getitem__(i), info.seed, torch.initial_seed()]

    rerun = list(DataLoader(WithSeeds(), batch_size=None, num_workers=2, generator=torch.Generator().manual_seed(0)))
    epoch0 = [row[:4] for row in rerun]
    assert [row[4:] for row in rerun] == [[bases[0] + k, bases[0] + k] for k in (0, 1, 0, 1)]
    assert epoch0 == expected(bases[0]) and demo_draws == expected(bases[1])
    for column in (1, 2, 3):  # numpy, random, torch
        assert epoch0[0][column] != epoch0[1][column]  # worker 0 vs worker 1
        assert epoch0[0][column] != demo_draws[0][column]  # epoch 0 vs epoch 1
    # NumPy's seed is derived from (base_seed, k); it is not info.seed itself.
    plain = np.random.RandomState((bases[0] + 1) % 2**32)
    assert [int(plain.randint(1000)) for _ in range(2)] != [epoch0[1][1], epoch0[3][1]]
    # So the old seed_worker recipe is redundant for global NumPy: without it, no NumPy draw repeats.
    assert len({row[1] for row in epoch0 + demo_draws}) == 8

    # A constant worker_init_fn makes every worker replay one NumPy stream.
    assert [row[1] for row in constant_draws] == [102, 102, 435, 435]
    assert constant_draws[0][1] == np.random.RandomState(42).randint(1000)

    # Reseeding torch's global RNG every epoch pins base_seed, so the epochs replay: the shown epoch is the
    # NumPy column of the demo's epoch 0 (base seed bases[0]), and every reseeded iterator gets that base seed
    # (proven without workers just below).
    assert draws == [row[:2] for row in epoch0]
    # With generator= on the loader, base_seed no longer comes from the global RNG (the reseed then only
    # replays what else draws from it: init, dropout, torch-based augmentations).
    own = torch.Generator().manual_seed(0)
    single = DataLoader(NumpyDraws(), batch_size=None, generator=own)
    torch.manual_seed(0)
    first = iter(single)._base_seed
    torch.manual_seed(0)
    assert iter(single)._base_seed != first
    torch.manual_seed(0)
    no_generator = iter(DataLoader(NumpyDraws(), batch_size=None))._base_seed
    torch.manual_seed(0)
    assert iter(DataLoader(NumpyDraws(), batch_size=None))._base_seed == no_generator == bases[0]


if __name__ == "__main__":
    _check()
