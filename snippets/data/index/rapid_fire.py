"""Rapid-fire answers for Module 4 that are best given as code."""

# --8<-- [start:not_iterator]
from torch.utils.data import DataLoader

loader = DataLoader(range(6), batch_size=4)
# an epoch starts here (and, with workers, the worker processes)
batches = iter(loader)
print(next(batches), next(batches))
# > tensor([0, 1, 2, 3]) tensor([4, 5])
# --8<-- [end:not_iterator]

# --8<-- [start:buffers]
from torch import nn

model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
# the BatchNorm's entries ("1." cut off): its buffers are saved too
print([name[2:] for name in model.state_dict() if name.startswith("1.")])
# > ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
# --8<-- [end:buffers]

# --8<-- [start:strict_shapes]
from torch import nn

try:
    nn.Linear(4, 5).load_state_dict(nn.Linear(4, 10).state_dict(), strict=False)
except RuntimeError as err:
    # strict=False forgives missing keys, not shapes
    print(str(err).splitlines()[1].strip().split(" from ")[0])
# > size mismatch for weight: copying a param with shape torch.Size([10, 4])
# --8<-- [end:strict_shapes]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.raises(StopIteration):
        next(batches)  # the epoch is over; iter(loader) would start a new one
    with pytest.raises(TypeError, match="'DataLoader' object is not an iterator"):
        next(loader)
    buffers = {name for name, _ in model.named_buffers()}
    assert buffers == {"1.running_mean", "1.running_var", "1.num_batches_tracked"} <= set(model.state_dict())
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        nn.Linear(4, 5).load_state_dict(nn.Linear(4, 10).state_dict(), strict=False)


if __name__ == "__main__":
    _check()
