"""A reproducible run: seed every RNG, pass a generator to the loader, and turn on deterministic algorithms."""

# --8<-- [start:seed_everything]
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def seed_everything(seed: int) -> torch.Generator:
    random.seed(seed)  # Python's RNG (your own code, some libraries)
    np.random.seed(seed)  # NumPy's global RNG
    # the default generator of every device: CPU, CUDA, MPS...
    torch.manual_seed(seed)
    # deterministic kernels, or a RuntimeError
    torch.use_deterministic_algorithms(True)
    # the default: no per-run autotuned choice of conv algorithm
    torch.backends.cudnn.benchmark = False
    # for the DataLoader: shuffle order and worker seeds
    return torch.Generator().manual_seed(seed)


def train(seed: int) -> list[float]:
    generator = seed_everything(seed)
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    loader = DataLoader(
        TensorDataset(x, y), batch_size=16, shuffle=True, generator=generator
    )
    model = nn.Sequential(
        nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for xb, yb in loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


# bit for bit: init, data, shuffle order, dropout masks
print(train(0) == train(0), train(0) == train(1))
# > True False
# --8<-- [end:seed_everything]

# --8<-- [start:refuses]
import torch

torch.use_deterministic_algorithms(True)
x = torch.zeros(3)
index, values = torch.tensor([0, 0]), torch.tensor([1.0, 2.0])
try:
    # two writes to one element: which one wins is up to the kernel
    x.put_(index, values)
except RuntimeError as err:
    print(str(err).split(",")[0])
# > put_ does not have a deterministic implementation
# summing the duplicates is well defined
x.index_put_((index,), values, accumulate=True)
print(x)
# > tensor([3., 0., 0.])
print(torch.empty(2))  # in this mode, uninitialized memory is filled with NaN
# > tensor([nan, nan])
# --8<-- [end:refuses]

# --8<-- [start:float_order]
import torch

x = torch.randn(100_000, generator=torch.Generator().manual_seed(0))
# the same numbers, added in another order
print(torch.equal(x.sum(), x.flip(0).sum()))
# > False
print((0.1 + 0.2) + 0.3 == 0.1 + (0.2 + 0.3))
# > False
# --8<-- [end:float_order]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The page says CUBLAS_WORKSPACE_CONFIG is not needed from 2.10 on (PR #161749 landed after the 2.9
    # branch cut); that statement only covers this stack if torch is at least 2.10.
    from torch.torch_version import TorchVersion

    assert TorchVersion(torch.__version__) >= "2.10"
    # The seeded runs are identical to the last bit, and seed 1 is a different run.
    first = train(0)
    assert first == train(0) and first != train(1) and len(first) == 4
    assert torch.are_deterministic_algorithms_enabled()

    # The loader's generator alone decides the shuffle order: the global seed is the same here.
    def order(loader_seed: int) -> list[int]:
        seed_everything(0)
        loader = DataLoader(range(8), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(loader_seed))
        return next(iter(loader)).tolist()

    assert order(0) == order(0) != order(1)
    assert seed_everything(3).initial_seed() == 3 == torch.initial_seed()

    # The refusing ops on CPU, with the documented message, and warn_only turning the error into a warning.
    torch.use_deterministic_algorithms(True)
    message = "put_ does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms"
    with pytest.raises(RuntimeError, match=message):
        torch.zeros(3).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
    pool, unpool = torch.nn.MaxPool1d(2, return_indices=True), torch.nn.MaxUnpool1d(2)
    with pytest.raises(RuntimeError, match="max_unpooling2d_forward_out does not have a deterministic"):
        unpool(*pool(torch.arange(8.0).view(1, 1, 8)))
    assert torch.utils.deterministic.fill_uninitialized_memory is True
    assert torch.empty(4, dtype=torch.int64).eq(torch.iinfo(torch.int64).max).all()  # integers: the max value
    torch.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match="put_ does not have a deterministic implementation"):
        torch.zeros(3).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
    torch.use_deterministic_algorithms(False)
    torch.testing.assert_close(x.sum(), x.flip(0).sum())  # different bits, the same value within float32 tolerance


if __name__ == "__main__":
    _check()
