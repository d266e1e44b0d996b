"""Variable-length batches: pack with enforce_sorted=False; h_n comes back per sequence, in batch order."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

lstm = nn.LSTM(10, 20, batch_first=True, bidirectional=True)
x = torch.randn(3, 5, 10)  # right-padded batch
lengths = torch.tensor([5, 2, 3])  # a list or a CPU int64 tensor
packed = pack_padded_sequence(x, lengths, batch_first=True,
                              enforce_sorted=False)
print(tuple(packed.data.shape), packed.batch_sizes.tolist())
# > (10, 10) [3, 3, 2, 1, 1]
out, (h_n, _) = lstm(packed)
out, _ = pad_packed_sequence(out, batch_first=True, total_length=5)
alone, (h_alone, _) = lstm(x[1:2, :2])  # sequence 1 on its own
print(torch.allclose(h_n[:, 1], h_alone[:, 0], atol=1e-6))  # both directions
# > True
print(out[1, 2:].abs().sum().item())  # padding positions are zeros
# > 0.0
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert packed.sorted_indices.tolist() == [0, 2, 1]
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order when `enforce_sorted` is True"):
        pack_padded_sequence(x, lengths, batch_first=True)
    # Without packing, both directions of the short sequence are wrong.
    _, (h_pad, _) = lstm(x)
    assert not torch.allclose(h_pad[0, 1], h_alone[0, 0], atol=1e-4)  # forward ran through padding
    assert not torch.allclose(h_pad[1, 1], h_alone[1, 0], atol=1e-4)  # backward started on padding
    # Every sequence matches its own run.
    for i, n in enumerate(lengths.tolist()):
        _, (h_i, _) = lstm(x[i : i + 1, :n])
        torch.testing.assert_close(h_n[:, i], h_i[:, 0])
    assert out.shape == (3, 5, 40)
    out7, _ = pad_packed_sequence(lstm(packed)[0], batch_first=True, total_length=7)
    assert out7.shape == (3, 7, 40)
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D CPU int64 tensor, but got 1D meta"):
        pack_padded_sequence(x, torch.tensor([5, 3, 2], device="meta"), batch_first=True)
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        pack_padded_sequence(x, torch.tensor([5, 0, 3]), batch_first=True, enforce_sorted=False)


if __name__ == "__main__":
    _check()
