"""A collate_fn that pads variable-length sequences and returns a mask; bucketing by length cuts the padding."""

# --8<-- [start:default_fails]
import torch
from torch.utils.data import DataLoader

sequences = [torch.tensor([5, 3, 8]), torch.tensor([7])]
try:
    # default_collate stacks: the shapes must match
    next(iter(DataLoader(sequences, batch_size=2)))
except RuntimeError as err:
    print(str(err).replace(", but", ",\nbut"))
# > stack expects each tensor to be equal size,
# > but got [3] at entry 0 and [1] at entry 1
# --8<-- [end:default_fails]

# --8<-- [start:demo]
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_collate(batch):
    tokens, labels = zip(*batch, strict=True)
    lengths = torch.tensor([len(t) for t in tokens])
    # (batch, longest); default is (longest, batch)
    padded = pad_sequence(tokens, batch_first=True, padding_value=0)
    # True on real tokens
    mask = torch.arange(padded.size(1)) < lengths[:, None]
    return padded, mask, torch.tensor(labels)


dataset = [
    (torch.tensor([5, 3, 8]), 0),
    (torch.tensor([7]), 1),
    (torch.tensor([2, 9]), 0),
]
padded, mask, labels = next(
    iter(DataLoader(dataset, batch_size=3, collate_fn=pad_collate))
)
print(padded)
# > tensor([[5, 3, 8],
# >         [7, 0, 0],
# >         [2, 9, 0]])
print(mask.int())
# > tensor([[1, 1, 1],
# >         [1, 0, 0],
# >         [1, 1, 0]], dtype=torch.int32)
embeddings = torch.nn.Embedding(10, 4)(padded)  # (3, 3, 4)
# a masked mean: pads don't count
mean = (embeddings * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
print(tuple(mean.shape))
# > (3, 4)
# --8<-- [end:demo]

demo_padded, demo_mask, demo_embeddings, demo_mean = padded, mask, embeddings, mean
del pad_sequence  # each section imports its own

# --8<-- [start:bucketing]
from functools import partial

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Sampler

lengths = [9, 2, 8, 3, 1, 7, 2, 9]
dataset = [torch.ones(n) for n in lengths]


class ByLength(Sampler):
    """A batch sampler: lists of indices of sequences with similar lengths."""

    def __init__(self, lengths, batch_size):
        self.lengths, self.batch_size = lengths, batch_size

    def __len__(self):
        return -(-len(self.lengths) // self.batch_size)

    def __iter__(self):
        order = sorted(range(len(self.lengths)), key=self.lengths.__getitem__)
        batches = [
            order[i : i + self.batch_size]
            for i in range(0, len(order), self.batch_size)
        ]
        # shuffle the batches, not the samples
        for b in torch.randperm(len(batches)).tolist():
            yield batches[b]


def padding(loader):
    return sum(int((batch == 0).sum()) for batch in loader)


# a partial pickles (for spawned workers); a lambda doesn't
pad = partial(pad_sequence, batch_first=True)
plain = DataLoader(dataset, batch_size=2, collate_fn=pad)
bucketed = DataLoader(
    dataset, batch_sampler=ByLength(lengths, 2), collate_fn=pad
)
print(padding(plain), padding(bucketed))  # padded positions per epoch
# > 25 3
# --8<-- [end:bucketing]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch import nn

    # The collate output: shapes, dtypes, and the mask marks exactly the real tokens.
    assert demo_padded.shape == (3, 3) and demo_padded.dtype == torch.int64 and demo_mask.dtype == torch.bool
    assert demo_mask.sum(1).tolist() == [3, 1, 2] and labels.tolist() == [0, 1, 0]
    # The default of pad_sequence is time-first: (longest, batch).
    assert pad_sequence([torch.tensor([5, 3, 8]), torch.tensor([7])]).shape == (3, 2)
    assert pad([torch.tensor([5, 3, 8]), torch.tensor([7])]).shape == (2, 3)
    # The masked mean equals the mean over each sequence's own tokens.
    for row, n in enumerate([3, 1, 2]):
        torch.testing.assert_close(demo_mean[row], demo_embeddings[row, :n].mean(0))
    # nn.MultiheadAttention's key_padding_mask uses the opposite convention: True marks PADDING. With ~mask,
    # what sits in the padded positions cannot change the outputs at the real positions.
    attention = nn.MultiheadAttention(embed_dim=4, num_heads=1, batch_first=True)
    x = torch.randn(3, 3, 4)
    noisy = x.clone()
    noisy[~demo_mask] = 100.0
    out, _ = attention(x, x, x, key_padding_mask=~demo_mask)
    out_noisy, _ = attention(noisy, noisy, noisy, key_padding_mask=~demo_mask)
    torch.testing.assert_close(out[demo_mask], out_noisy[demo_mask])
    wrong, _ = attention(noisy, noisy, noisy, key_padding_mask=demo_mask)  # the inverted mask attends to pads
    assert not torch.allclose(out[demo_mask], wrong[demo_mask])

    # Bucketing: every index exactly once per epoch, the batch order shuffled, len() = number of batches.
    sampler = ByLength(lengths, 2)
    epoch = list(sampler)
    assert sorted(i for batch in epoch for i in batch) == list(range(8)) and len(sampler) == len(epoch) == 4
    assert sorted(sorted(lengths[i] for i in batch) for batch in epoch) == [[1, 2], [2, 3], [7, 8], [9, 9]]
    assert len(ByLength(lengths, 3)) == 3
    import pickle

    assert pickle.loads(pickle.dumps(pad)).keywords == {"batch_first": True}
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(lambda b: b)
    torch.manual_seed(0)
    first = list(sampler)
    assert any(list(sampler) != first for _ in range(5))  # a new batch order on later epochs

    # Drift alarm for the prose: pad_sequence(padding_side="left") exists and pads at the front.
    left = pad_sequence([torch.tensor([5, 3, 8]), torch.tensor([7])], batch_first=True, padding_side="left")
    assert left.tolist() == [[5, 3, 8], [0, 0, 7]]
    right = pad_sequence([torch.tensor([5, 3, 8]), torch.tensor([7])], batch_first=True)
    assert right.tolist() == [[5, 3, 8], [7, 0, 0]]  # the default side is the right

if __name__ == "__main__":
    _check()
