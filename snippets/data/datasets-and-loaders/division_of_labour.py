"""Dataset answers "what is sample i?", the sampler picks indices, collate_fn builds batches, DataLoader runs it all."""

# --8<-- [start:demo]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    """Answers one question: what is sample i?"""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i


dataset = Squares()
loader = DataLoader(dataset, batch_size=4, shuffle=True)
print(
    type(loader.sampler).__name__,
    type(loader.batch_sampler).__name__,
    loader.collate_fn.__name__,
)
# > RandomSampler BatchSampler default_collate

# One epoch of that loader, by hand (with num_workers > 0, the fetch and collate
# run in worker processes):
# the sampler orders the indices, the batch sampler groups them
for indices in loader.batch_sampler:
    # the dataset turns each index into a sample
    samples = [dataset[i] for i in indices]
    # collate_fn turns a list of samples into one batch
    x, y = loader.collate_fn(samples)
    # Python ints became an int64 tensor
    print(len(indices), tuple(x.shape), y.dtype)
# > 4 (4, 1) torch.int64
# > 2 (2, 1) torch.int64
# --8<-- [end:demo]

# --8<-- [start:iterable]
from torch.utils.data import DataLoader

# anything with __getitem__ and __len__ is a map-style dataset
loader = DataLoader(range(10), batch_size=4)
try:
    next(loader)
except TypeError as err:
    print(err)
# > 'DataLoader' object is not an iterator
# each iter() is a new epoch: the same first batch twice
print(next(iter(loader)), next(iter(loader)))
# > tensor([0, 1, 2, 3]) tensor([0, 1, 2, 3])
print(len(loader))  # ceil(10 / 4) batches
# > 3
# --8<-- [end:iterable]

# --8<-- [start:no_len]
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):  # no __len__
    def __getitem__(self, i):
        return i * i


try:
    # RandomSampler needs len(dataset)
    DataLoader(Squares(), batch_size=2, shuffle=True)
except TypeError as err:
    print(err)
# > object of type 'Squares' has no len()
# any iterable of indices can be the sampler
loader = DataLoader(Squares(), batch_size=2, sampler=[3, 1, 2])
print(list(loader))
# > [tensor([9, 1]), tensor([4])]
# --8<-- [end:no_len]

no_len_loader = loader
del torch  # each section imports its own

# --8<-- [start:weighted]
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

labels = torch.tensor([0] * 90 + [1] * 10)  # a 9:1 class imbalance
# each sample: 1 / (size of its class)
weights = 1.0 / torch.bincount(labels)[labels].double()
sampler = WeightedRandomSampler(
    weights, num_samples=800, generator=torch.Generator().manual_seed(0)
)
loader = DataLoader(
    TensorDataset(torch.arange(100), labels), batch_size=100, sampler=sampler
)
ids, drawn = (torch.cat(parts) for parts in zip(*loader, strict=True))
print(torch.bincount(drawn).tolist())  # about half and half
# > [393, 407]
# ...because the same 10 minority samples come back ~40 times each
print(ids[drawn == 1].unique().numel())
# > 10
# --8<-- [end:weighted]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler, default_collate

    # The by-hand epoch is exactly what the DataLoader yields, given the same RNG state: the iterator first
    # draws its base seed from the global RNG, then RandomSampler draws the permutation.
    class Squares(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return torch.tensor([float(i)]), i * i

    data = Squares()
    shuffled = DataLoader(data, batch_size=4, shuffle=True)
    torch.manual_seed(5)
    from_loader = list(shuffled)
    torch.manual_seed(5)
    torch.empty((), dtype=torch.int64).random_()  # the iterator's base seed
    by_hand = [default_collate([data[i] for i in batch]) for batch in shuffled.batch_sampler]
    assert len(from_loader) == len(by_hand) == 2
    for (xl, yl), (xh, yh) in zip(from_loader, by_hand, strict=True):
        assert torch.equal(xl, xh) and torch.equal(yl, yh) and torch.equal(yl, xl.squeeze(1).long() ** 2)
    assert sorted(torch.cat([x for x, _ in from_loader]).squeeze(1).tolist()) == [0, 1, 2, 3, 4, 5]
    assert isinstance(DataLoader(data).sampler, SequentialSampler)  # shuffle=False: in order

    # default_collate recurses into dicts: tensors are stacked, numbers become a tensor, strings stay a list.
    batch = default_collate([{"x": torch.ones(2), "id": 1, "name": "a"}, {"x": torch.zeros(2), "id": 2, "name": "b"}])
    assert batch["x"].shape == (2, 2) and batch["id"].tolist() == [1, 2] and batch["name"] == ["a", "b"]
    import numpy as np

    arrays = default_collate([np.ones(3), np.zeros(3)])  # NumPy arrays become one stacked tensor
    assert isinstance(arrays, torch.Tensor) and arrays.shape == (2, 3) and arrays.dtype == torch.float64
    # sampler and batch_sampler are mutually exclusive with the options they replace.
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(data, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with batch_size, shuffle"):
        DataLoader(data, batch_sampler=[[0, 1]], batch_size=2)
    custom = DataLoader(data, batch_sampler=BatchSampler(RandomSampler(data), batch_size=3, drop_last=False))
    assert [len(y) for _, y in custom] == [3, 3]
    # batch_size=None turns automatic batching off: one sample at a time, converted but not stacked.
    assert [y for _, y in DataLoader(data, batch_size=None)] == [0, 1, 4, 9, 16, 25]

    # Without __len__: the default sequential sampler fails when iterated; a custom sampler works.
    class NoLen(Dataset):
        def __getitem__(self, i):
            return i

    with pytest.raises(TypeError, match="object of type 'NoLen' has no len"):
        list(DataLoader(NoLen()))
    assert len(DataLoader(NoLen(), sampler=[0, 1])) == 2  # len(loader) comes from the sampler
    assert [int(b) for b in DataLoader(NoLen(), sampler=[2, 0])] == [2, 0]
    assert [b.tolist() for b in no_len_loader] == [[9, 1], [4]]

    # The weighted sampler draws with replacement: the minority class is oversampled, not enlarged.
    assert sorted(ids[drawn == 1].unique().tolist()) == list(range(90, 100))
    assert ids.numel() == 800 and 350 < int((drawn == 1).sum()) < 450


if __name__ == "__main__":
    _check()
