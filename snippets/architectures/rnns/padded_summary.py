"""Spot the bug: a bidirectional summary that reads padding."""

# --8<-- [start:buggy]
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(32, 2)

    def forward(self, x, lengths):  # x: right-padded (N, L, 8)
        out, _ = self.lstm(x)
        return self.fc(out[:, -1, :])


model = Classifier()
x, lengths = torch.randn(2, 6, 8), torch.tensor([6, 3])
x[1, 3:] = 0.0  # padding
print(tuple(model(x, lengths).shape))
# > (2, 2)
# --8<-- [end:buggy]

Buggy = Classifier

# --8<-- [start:fixed]
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(32, 2)

    def forward(self, x, lengths):  # x: right-padded (N, L, 8)
        packed = pack_padded_sequence(x, lengths, batch_first=True,
                                      enforce_sorted=False)
        _, (h_n, _) = self.lstm(packed)  # each sequence's own last step
        return self.fc(torch.cat([h_n[-2], h_n[-1]], dim=-1))


model = Classifier()
x, lengths = torch.randn(2, 6, 8), torch.tensor([6, 3])
x[1, 3:] = 0.0  # padding
print(tuple(model(x, lengths).shape))
# > (2, 2)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    fixed, buggy = Classifier(), Buggy()
    buggy.load_state_dict(fixed.state_dict())
    wider = torch.cat([x, torch.zeros(2, 4, 8)], dim=1)  # four more padding columns
    # The buggy logits of the short sequence depend on how much padding follows it.
    assert not torch.allclose(buggy(x, lengths)[1], buggy(wider, lengths)[1], atol=1e-4)
    # The fixed ones don't, and they equal running the sequence alone.
    torch.testing.assert_close(fixed(x, lengths), fixed(wider, lengths))
    torch.testing.assert_close(fixed(x, lengths)[1], fixed(x[1:2, :3], lengths[1:])[0])
    torch.testing.assert_close(fixed(x, lengths)[0], fixed(x[:1], lengths[:1])[0])


if __name__ == "__main__":
    _check()
