"""C30 · Padding collate with lengths and a mask."""

# --8<-- [start:prompt]
import torch
from torch.nn.utils.rnn import pad_sequence


def collate(batch, pad_id=0):
    """A DataLoader collate_fn for a list of (ids, label) pairs.

    ids: 1-D int64 token ids of any length (0 allowed); label: an int.
    Returns a dict, in the batch's order: "input_ids" (B, T) int64, right
    padded with pad_id; "lengths" (B,) int64 on the CPU; "attention_mask"
    (B, T) bool, True on real tokens; "labels" (B,) int64.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = collate


# --8<-- [start:wrong]
import torch
from torch.nn.utils.rnn import pad_sequence


def collate(batch, pad_id=0):
    ids = [x for x, _ in batch]
    lengths = torch.tensor([len(x) for x in ids], dtype=torch.int64)
    input_ids = pad_sequence(ids, batch_first=True, padding_value=pad_id)
    attention_mask = input_ids != pad_id
    labels = torch.tensor([y for _, y in batch], dtype=torch.int64)
    return {"input_ids": input_ids, "lengths": lengths,
            "attention_mask": attention_mask, "labels": labels}
# --8<-- [end:wrong]


_wrong = collate
WRONG_MESSAGE = 'build it from the lengths'


# --8<-- [start:solution]
import torch
from torch.nn.utils.rnn import pad_sequence


def collate(batch, pad_id=0):
    ids = [x for x, _ in batch]
    lengths = torch.tensor([len(x) for x in ids], dtype=torch.int64)
    input_ids = pad_sequence(ids, batch_first=True, padding_value=pad_id)
    attention_mask = torch.arange(input_ids.shape[1]) < lengths[:, None]
    labels = torch.tensor([y for _, y in batch], dtype=torch.int64)
    return {"input_ids": input_ids, "lengths": lengths,
            "attention_mask": attention_mask, "labels": labels}
# --8<-- [end:solution]


_solution = collate


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, close = (_KIT[n] for n in ("call", "close"))


def grade(collate):
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

    def fail(what, msg):
        raise AssertionError(f"C30 · {what}: {msg}")

    def check(batch, pad_id, what):
        out = call(collate, batch, pad_id) if pad_id is not None else call(collate, batch)
        pad_id = 0 if pad_id is None else pad_id
        if not isinstance(out, dict) or set(out) != {"input_ids", "lengths", "attention_mask", "labels"}:
            keys = sorted(out) if isinstance(out, dict) else type(out).__name__
            fail(what, f"return a dict with input_ids, lengths, attention_mask and labels; got {keys}")
        ids = [x for x, _ in batch]
        lengths = torch.tensor([len(x) for x in ids])
        want_ids = pad_sequence(ids, batch_first=True, padding_value=pad_id)
        mask = torch.arange(want_ids.shape[1]) < lengths[:, None]
        got_mask = out["attention_mask"]
        if torch.is_tensor(got_mask) and got_mask.shape == mask.shape and not torch.equal(got_mask, mask):
            row, col = (got_mask != mask).nonzero()[0].tolist()
            if ids[row][col] == pad_id:
                fail(what, f"your mask marks the real token {pad_id} at position {col} of sequence {row} as padding: "
                     f"build it from the lengths; {pad_id} is a real token id")
        close(out["input_ids"], want_ids, f"{what}: input_ids", 0, 0)
        close(out["lengths"], lengths, f"{what}: lengths (int64, on the CPU)", 0, 0)
        close(got_mask, mask, f"{what}: attention_mask (bool, True on real tokens)", 0, 0)
        close(out["labels"], torch.tensor([y for _, y in batch]), f"{what}: labels", 0, 0)
        return out

    t = torch.tensor
    batch = [(t([5, 6, 7]), 1), (t([8]), 0), (t([9, 0, 4, 0, 2]), 2)]  # 0 is a real token in the last one
    check(batch, None, "three sequences, pad_id 0, a real token 0")
    check(batch, 50256, "pad_id 50256")
    check([(t([3, 1, 0]), 4)], 0, "B=1")
    check([(t([], dtype=torch.int64), 0), (t([7, 7]), 1)], 0, "an empty sequence")
    out = check([(t([50256, 11]), 0), (t([12]), 1)], 50256, "a real token equal to pad_id 50256")
    packed = pack_padded_sequence(out["input_ids"][..., None].float(), out["lengths"], batch_first=True,
                                  enforce_sorted=False)  # lengths equal to the real ones are accepted
    assert packed.data.shape[0] == 3
    loader = torch.utils.data.DataLoader(batch, batch_size=2, collate_fn=collate)
    first = next(iter(loader))
    close(first["lengths"], t([3, 1]), "as a DataLoader collate_fn: the first batch's lengths", 0, 0)
    return "C30 passes: padding, lengths and a mask built from them (real 0s and pad-valued tokens kept)"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C30 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # a mutant of the reference that names its mask "mask"
    renamed = {"attention_mask": "mask"}
    with pytest.raises(AssertionError, match=r"^C30 · three sequences, pad_id 0, a real token 0: return a dict wi"):
        grade(lambda batch, pad_id=0: {renamed.get(k, k): v for k, v in _solution(batch, pad_id).items()})


if __name__ == "__main__":
    _check()
