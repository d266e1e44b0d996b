"""A per-row Python loop over a padded batch, rewritten with a mask, where, argmax and topk, gives the same answers."""

# --8<-- [start:loop]
import torch


def summarize_loop(scores, lengths, k=3):
    means, best, top = [], [], []
    for row, n in zip(scores, lengths, strict=True):
        real = row[:n]  # drop the padding
        means.append(real.mean())
        best.append(real.argmax())
        top.append(real.topk(k).indices)
    return torch.stack(means), torch.stack(best), torch.stack(top)


# a padded batch: row i has lengths[i] real positions
scores = torch.randn(6, 10)
lengths = torch.tensor([10, 3, 7, 5, 9, 4])
# --8<-- [end:loop]


# --8<-- [start:vectorized]
def summarize(scores, lengths, k=3):
    positions = torch.arange(scores.shape[1], device=scores.device)
    # (B, T) mask, by broadcasting (B, 1) against (T,)
    real = positions < lengths[:, None]
    means = torch.where(real, scores, 0.0).sum(dim=1) / lengths
    ranked = scores.masked_fill(~real, float("-inf"))  # padding can never win
    return means, ranked.argmax(dim=1), ranked.topk(k, dim=1).indices


fast, slow = summarize(scores, lengths), summarize_loop(scores, lengths)
same_means = torch.allclose(fast[0], slow[0])
print(same_means, torch.equal(fast[1], slow[1]), torch.equal(fast[2], slow[2]))
# > True True True
# --8<-- [end:vectorized]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Same answers as the loop: means to float rounding, indices exactly (random floats have no ties).
    torch.testing.assert_close(fast[0], slow[0])
    assert torch.equal(fast[1], slow[1]) and torch.equal(fast[2], slow[2])
    assert fast[2].shape == (6, 3) and bool((fast[2] < lengths[:, None]).all())  # never a padded position
    # Many batches, many shapes: still equal.
    for batch, width in [(1, 4), (5, 8), (16, 32)]:
        s = torch.randn(batch, width)
        n = torch.randint(3, width + 1, (batch,))
        got, want = summarize(s, n), summarize_loop(s, n)
        torch.testing.assert_close(got[0], want[0])
        assert torch.equal(got[1], want[1]) and torch.equal(got[2], want[2])

    # Why where(), not scores * mask: padding may hold inf or NaN, and inf * 0 is NaN.
    dirty = scores.clone()
    dirty[1, 5:] = float("inf")  # row 1 has 3 real positions; the rest is garbage
    dirty[3, 6] = float("nan")
    mask = torch.arange(10) < lengths[:, None]
    assert torch.isnan((dirty * mask).sum(dim=1)[[1, 3]]).all()
    torch.testing.assert_close(summarize(dirty, lengths)[0], slow[0])
    # The loop cannot even ask for the top 3 of a row with 2 real positions; the masked version can,
    # and then returns a padded position (value -inf): guard k <= lengths.min() when that matters.
    short = torch.tensor([10, 2, 7, 5, 9, 4])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        summarize_loop(scores, short)
    values = scores.masked_fill(~(torch.arange(10) < short[:, None]), float("-inf")).topk(3, dim=1).values
    assert torch.isinf(values[1, 2]) and values[1, 2] < 0


if __name__ == "__main__":
    _check()
