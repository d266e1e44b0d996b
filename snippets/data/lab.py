# %% [markdown]
# # Lab · Make a Sequence DataLoader Correct, Reproducible and Resumable
#
# You inherit the input pipeline of a small text classifier: token sequences of different lengths,
# a random-crop augmentation that runs in two worker processes, and a training run that checkpoints
# after every epoch. Three things are wrong, and none of them raises. The batches only come out
# because the collate function cuts every sequence to the shortest one. The two workers apply exactly
# the same "random" crops, and every epoch repeats them. And the checkpoint resumes a run that is not
# the one it interrupted. You fix one per exercise, and each check proves the effect: real tokens and
# a mask that matches the lengths, augmentations that differ across workers and epochs yet repeat
# exactly from a seed, and a resumed run whose every loss is bit-identical to an uninterrupted one.
#
# It draws on Module 4: Datasets, samplers and DataLoader, Q54 (a padding `collate_fn`); Randomness
# and reproducibility, Q57 (how workers are seeded, and what still repeats) and Q58 (a reproducible
# run); and Checkpointing, Q61 (what a resumable checkpoint holds) and Q64 (proving a resume).
# Allow 30 to 40 minutes.
#
# Everything runs on a CPU in a few seconds, with two worker processes. Colab, or any install with
# torch >= 2.6, has everything it needs: there is nothing to install. The loaders start their workers
# with `fork` (`multiprocessing_context="fork"`), because a worker started with `spawn` or `forkserver`
# can't import the classes and functions defined in a notebook. Linux and Colab have `fork`; on macOS
# or Windows, run the lab in Colab.

# %%
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
PAD, VOCAB = 0, 50  # token 0 is padding; real tokens are 1..49

# 16 "sentences" of 5 to 20 tokens, labelled 1 when their average token id is above the middle of the vocabulary.
lengths = torch.randint(5, 21, (16,)).tolist()
sequences = [torch.randint(1, VOCAB, (n,)) for n in lengths]
labels = [int(seq.float().mean() > VOCAB / 2) for seq in sequences]


class Sentences(Dataset):
    """Sample i is (tokens, label): a 1-D tensor of token ids, of its own length."""

    def __init__(self, sequences, labels):
        self.sequences, self.labels = sequences, labels

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, i):
        return self.sequences[i], self.labels[i]


class BagOfTokens(nn.Module):
    """Embeds the tokens, averages the real ones (the mask leaves padding out) and classifies."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 16, padding_idx=PAD)
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(16, 2))

    def forward(self, tokens, mask):
        summed = (self.embed(tokens) * mask.unsqueeze(-1)).sum(dim=1)
        return self.head(summed / mask.sum(dim=1, keepdim=True))


# The training harness of exercise 3. It uses the collate function of exercise 1 and the augmenting
# dataset of exercise 2, looked up when build() runs.
def build(seed):
    """Everything a fresh process creates before it knows about any checkpoint."""
    torch.manual_seed(seed)
    model = BagOfTokens()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    generator = torch.Generator().manual_seed(seed)  # shuffle order, and the workers' base seed
    dataset = RandomCrops(sequences, labels)
    loader = DataLoader(
        dataset,
        batch_size=4,
        shuffle=True,
        num_workers=2,
        multiprocessing_context="fork",
        collate_fn=pad_collate,
        generator=generator,
    )
    return model, optimizer, loader, generator


def train_epoch(model, optimizer, loader):
    model.train()
    losses = []
    for tokens, mask, y in loader:  # crops from the workers, dropout masks from torch's global RNG
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(tokens, mask), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


print("lengths:", lengths)
print("labels: ", labels)

# %% [markdown]
# ## Exercise 1 · Pad the batch instead of cutting it
#
# The default collate function stacks the samples, and sequences of different lengths can't be
# stacked. A colleague made the error go away by cutting every sequence to the shortest one in the
# batch: the shapes work, and most of every long sentence is silently thrown away.
#
# Rewrite `pad_collate(batch)`. It receives a list of `(tokens, label)` samples and returns `tokens`,
# shaped `(batch, longest)` and padded with `PAD` on the right, a boolean `mask` of the same shape,
# `True` on real tokens, and `labels` as a 1-D `int64` tensor. The check collates samples by hand and
# through a `DataLoader` with two workers, and asserts the shapes and dtypes, that the real tokens are
# exactly the original ones, that every padded position holds `PAD`, and that the mask counts each
# sequence's length.
#
# Hint: `torch.nn.utils.rnn.pad_sequence` is time-first unless you ask otherwise.


# %% tags=["exercise"]
def pad_collate(batch):
    seqs, ys = zip(*batch, strict=True)
    # TODO: this makes the shapes work by throwing tokens away
    shortest = min(len(s) for s in seqs)
    tokens = torch.stack([s[:shortest] for s in seqs])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    return tokens, mask, torch.tensor(ys)


# %% tags=["check"]
data = Sentences(sequences, labels)
for indices in ([0, 1, 2, 3], [4, 9, 15], [8]):
    samples = [data[i] for i in indices]
    tokens, mask, y = pad_collate(samples)
    true_lengths = torch.tensor([len(s) for s, _ in samples])
    longest = int(true_lengths.max())
    assert tokens.shape == (len(indices), longest), (
        f"tokens has shape {tuple(tokens.shape)} for sequences of lengths {true_lengths.tolist()}: "
        f"expected (batch, longest) = {(len(indices), longest)}"
    )
    assert tokens.dtype == torch.int64 and mask.dtype == torch.bool and mask.shape == tokens.shape, (
        "tokens should stay int64 (nn.Embedding wants integer ids) and mask should be a bool tensor of the same shape"
    )
    assert torch.equal(mask.sum(dim=1), true_lengths), "each row of the mask should count that sequence's real tokens"
    assert torch.equal(tokens[mask], torch.cat([s for s, _ in samples])), (
        "the real tokens, read row by row through the mask, should be the original sequences, in order"
    )
    assert (tokens[~mask] == PAD).all(), "every padded position should hold PAD"
    assert torch.equal(y, torch.tensor([label for _, label in samples])), "labels should be a 1-D tensor"

# The same function in the worker processes, where a DataLoader runs it.
loader = DataLoader(data, batch_size=4, num_workers=2, multiprocessing_context="fork", collate_fn=pad_collate)
for number, (_, mask, _) in enumerate(loader):
    assert torch.equal(mask.sum(dim=1), torch.tensor(lengths[4 * number : 4 * number + 4])), (
        "in the workers, the mask no longer matches the lengths"
    )
print("padded batch shapes:", [tuple(tokens.shape) for tokens, _, _ in loader])


# %% tags=["solution"]
def pad_collate(batch):
    seqs, ys = zip(*batch, strict=True)
    # batch_first=True gives (batch, longest); the default is (longest, batch).
    tokens = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=PAD)
    seq_lengths = torch.tensor([len(s) for s in seqs])
    # True on real tokens (Hugging Face's attention_mask convention). nn.MultiheadAttention's
    # key_padding_mask is True on PADDING: pass it ~mask.
    mask = torch.arange(tokens.shape[1]) < seq_lengths[:, None]
    return tokens, mask, torch.tensor(ys)


# %% [markdown]
# ## Exercise 2 · Two workers, one set of "random" crops
#
# `RandomCrops` augments each sentence with a random crop that keeps at least half of it. The crop is
# drawn from a NumPy generator created in `__init__`. Every worker process gets its own copy of the
# dataset, and with it a copy of the generator in the same state, so both workers draw the same crops.
# The parent's generator never draws, so every epoch's new workers start from that state again. Since
# PyTorch 1.9 the workers reseed `torch`, `random` and NumPy's *global* RNG on their own, but no one
# can reseed a generator object that you made.
#
# Fix `RandomCrops` (the dataset, not the loader: the check builds its own loaders). The check feeds it
# eight copies of one sentence, so that any difference between samples is the augmentation, and loads
# them in batches of two with two workers: batches 0 and 2 come from worker 0, batches 1 and 3 from
# worker 1. It asserts that the two workers' batches differ, that the second epoch differs from the
# first, and that a new loader with the same seeded `generator=` repeats both epochs exactly.
#
# Hint: which RNG does PyTorch reseed in every worker, per epoch, from the loader's generator?


# %% tags=["exercise"]
class RandomCrops(Dataset):
    """Sample i is a random crop of sentence i, keeping at least half of it, and its label."""

    def __init__(self, sequences, labels, seed=0):
        self.sequences, self.labels = sequences, labels
        self.rng = np.random.default_rng(seed)  # TODO: every worker gets a copy of this, in this state

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, i):
        seq = self.sequences[i]
        keep = int(self.rng.integers((len(seq) + 1) // 2, len(seq) + 1))
        start = int(self.rng.integers(0, len(seq) - keep + 1))
        return seq[start : start + keep], self.labels[i]


# %% tags=["check"]
one_sentence = torch.arange(1, 21)  # 20 tokens, so a crop shows as its start and its length
copies = RandomCrops([one_sentence] * 8, [0] * 8)


def two_epochs(seed):
    """The padded token batches of two epochs of one loader, as nested lists."""
    loader = DataLoader(
        copies,
        batch_size=2,
        num_workers=2,
        multiprocessing_context="fork",
        collate_fn=pad_collate,
        generator=torch.Generator().manual_seed(seed),
    )
    return [[tokens.tolist() for tokens, _, _ in loader] for _ in range(2)]


first_run = two_epochs(seed=0)
epoch0, epoch1 = first_run
assert epoch0[0] != epoch0[1] and epoch0[2] != epoch0[3], (
    "worker 0 and worker 1 applied the same crops: each worker has a copy of the same generator, in the same state"
)
assert epoch0 != epoch1, "the second epoch repeated the first one's crops: each epoch's workers start from one state"
assert two_epochs(seed=0) == first_run, (
    "the same seeded generator= gave different crops: the randomness must come from the seeds the loader hands out"
)
assert two_epochs(seed=1) != first_run, "another seed gave the same crops: the crops ignore the loader's generator"
for number, epoch in enumerate(first_run):  # a crop of 1..20 starts at token value - 1
    crops = [[(row[0] - 1, sum(token != PAD for token in row)) for row in batch] for batch in epoch]
    print(f"epoch {number}, (start, length) of each crop, batch by batch:", crops)


# %% tags=["solution"]
class RandomCrops(Dataset):
    """Sample i is a random crop of sentence i, keeping at least half of it, and its label."""

    def __init__(self, sequences, labels, seed=0):
        self.sequences, self.labels = sequences, labels

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, i):
        seq = self.sequences[i]
        # torch's global RNG: the loader seeds it in worker k with base_seed + k, and draws base_seed from
        # its generator= (or the global RNG) for every epoch. Different per worker and per epoch, and
        # reproducible. If you need a NumPy generator, create it lazily in __getitem__ from
        # get_worker_info().seed, in the process that uses it, never in __init__.
        keep = int(torch.randint((len(seq) + 1) // 2, len(seq) + 1, ()))
        start = int(torch.randint(0, len(seq) - keep + 1, ()))
        return seq[start : start + keep], self.labels[i]


# %% [markdown]
# ## Exercise 3 · A checkpoint that resumes the same run
#
# The harness in the setup cell trains `BagOfTokens` on the cropped, padded batches: `build(seed)`
# makes the model, an AdamW optimizer and a shuffling loader with its own `generator`, and
# `train_epoch` returns the epoch's per-step losses. The colleague's checkpoint saves the model's
# weights and the epoch, and nothing else. After a resume, the run goes on, but it is a different run.
#
# Complete `save_checkpoint` and `load_checkpoint`. The check trains 4 epochs without a stop, as the
# reference. Then it trains 2 epochs, saves, throws everything away, rebuilds with `build(seed=123)`
# (a new process doesn't know the old seed), loads, and trains the last 2 epochs. Every one of the 16
# per-step losses and every final weight must be bit-identical to the reference.
#
# Hint: list everything that draws a random number or keeps state between steps. The loss depends on the
# weights, the optimizer's moments, the dropout masks, and which sentences, cropped how, end up in each
# batch. `torch.load` only opens tensors, numbers, strings and containers by default: keep to those.


# %% tags=["exercise"]
def save_checkpoint(path, epoch, model, optimizer, generator):
    # TODO: enough to continue the run exactly
    torch.save({"epoch": epoch, "model": model.state_dict()}, path)


def load_checkpoint(path, model, optimizer, generator):
    """Restore the state saved at `path` into freshly built objects; return the epoch to run next."""
    state = torch.load(path)
    model.load_state_dict(state["model"])
    return state["epoch"] + 1


# %% tags=["check"]
EPOCHS, STOP_AFTER = 4, 2
model, optimizer, loader, generator = build(seed=0)
reference = [loss for _ in range(EPOCHS) for loss in train_epoch(model, optimizer, loader)]
reference_weights = [p.detach().clone() for p in model.parameters()]

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "last.pt"
    model, optimizer, loader, generator = build(seed=0)
    history = []
    for epoch in range(STOP_AFTER):
        history += train_epoch(model, optimizer, loader)
        save_checkpoint(path, epoch, model, optimizer, generator)
    del model, optimizer, loader, generator  # the process "stops": only the file survives

    model, optimizer, loader, generator = build(seed=123)
    start = load_checkpoint(path, model, optimizer, generator)
    assert start == STOP_AFTER, f"load_checkpoint returned {start}: the next epoch to run is {STOP_AFTER}"
    for _ in range(start, EPOCHS):
        history += train_epoch(model, optimizer, loader)

assert len(history) == len(reference) == 16
differ = [step for step, (a, b) in enumerate(zip(history, reference, strict=True)) if a != b]
assert not differ, (
    f"the resumed run differs from the uninterrupted one at steps {differ} (steps 0-7 ran before the stop). "
    "Saved and restored: the optimizer's state (AdamW's moments and step count)? torch's RNG state (dropout)? "
    "The loader's generator (shuffle order and the workers' seeds, so the crops)?"
)
assert all(torch.equal(p, q) for p, q in zip(model.parameters(), reference_weights, strict=True)), (
    "the losses match but the final weights don't"
)
print(f"all {len(history)} losses bit-identical to the uninterrupted run; last loss {history[-1]:.4f}")


# %% tags=["solution"]
def save_checkpoint(path, epoch, model, optimizer, generator):
    state = {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),  # AdamW's exp_avg, exp_avg_sq and step, per parameter
        "torch_rng": torch.get_rng_state(),  # the dropout masks of the next steps (add CUDA's on a GPU)
        "loader_rng": generator.get_state(),  # the next epochs' shuffle order and workers' base seeds
    }
    # Only tensors, numbers and dicts: torch.load opens it with its default weights_only=True. Write a
    # temporary file and rename it, so a crash mid-save leaves the previous checkpoint intact.
    torch.save(state, path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)


def load_checkpoint(path, model, optimizer, generator):
    """Restore the state saved at `path` into freshly built objects; return the epoch to run next."""
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])
    generator.set_state(state["loader_rng"])
    return state["epoch"] + 1


# %% [markdown]
# ## What to say in the interview
#
# - **"The default collate stacks; variable lengths need padding and a mask."** Pad to the longest
#   sequence in the batch with `pad_sequence(..., batch_first=True)`, build the mask from the lengths,
#   and use it wherever padding must not count: pooling, attention (`key_padding_mask=~mask` in PyTorch)
#   and the loss. Truncating to make the shapes fit silently throws data away.
# - **"Workers are reseeded, but not your RNG objects."** Since PyTorch 1.9, worker *k* seeds `torch`
#   and `random` with `base_seed + k`, and NumPy's global RNG with a seed derived from both. The old
#   advice that NumPy repeats across workers, and the `seed_worker` recipe that fixes it, describe
#   releases before 1.9. What still repeats is a generator made in `__init__` (or a constant reseed):
#   draw from torch's RNG, or derive the generator from `get_worker_info().seed`.
# - **"`generator=` makes the loader reproducible."** It fixes the shuffle order and each epoch's
#   `base_seed`, so the augmentations in the workers repeat from run to run and still differ across
#   workers and epochs.
# - **"A resumable checkpoint is more than the weights."** Model, optimizer (moments and step counts),
#   scheduler if there is one, the epoch, torch's RNG state and the loader's generator, all in plain
#   types so that the default `torch.load(weights_only=True)` opens it.
# - **"I prove a resume by comparing it with an uninterrupted run."** Bit-identical per-step losses and
#   weights on the same machine, after rebuilding every object from a different seed. "The loss curve
#   looks continuous" proves nothing.
