"""Rapid-fire answers best given as code: h_n's shape, the conv output size, the switch aux loss at balance."""

# --8<-- [start:h_n]
import torch
from torch import nn

lstm = nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True)
out, (h_n, c_n) = lstm(torch.randn(3, 5, 10))  # N=3, L=5
print(tuple(out.shape), tuple(h_n.shape))  # h_n ignores batch_first
# > (3, 5, 40) (4, 3, 20)
# --8<-- [end:h_n]

# --8<-- [start:conv_out]
import torch
from torch import nn

conv = nn.Conv2d(1, 1, kernel_size=3, stride=2, padding=1)
print(conv(torch.zeros(1, 1, 65, 65)).shape[-1])  # floor(64 / 2) + 1
# > 33
# --8<-- [end:conv_out]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert h_n.shape == c_n.shape == (4, 3, 20)
    assert (65 + 2 * 1 - 3) // 2 + 1 == 33


if __name__ == "__main__":
    _check()
