"""Spot the bug: Kaiming init on a weight stored (in, out) reads fan_in from the wrong dim."""

# --8<-- [start:buggy]
import torch
from torch import nn


class Projection(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d_in, d_out))
        nn.init.kaiming_normal_(self.w, nonlinearity="relu")

    def forward(self, x):
        return torch.relu(x @ self.w)


layer = Projection(1024, 16)
y = layer(torch.randn(4096, 1024))
print(tuple(y.shape))
# > (4096, 16)
# --8<-- [end:buggy]

Buggy = Projection

# --8<-- [start:fixed]
import torch
import torch.nn.functional as F
from torch import nn


class Projection(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.w = nn.Parameter(torch.empty(d_out, d_in))  # like nn.Linear
        nn.init.kaiming_normal_(self.w, nonlinearity="relu")  # fan_in = d_in

    def forward(self, x):
        return torch.relu(F.linear(x, self.w))


layer = Projection(1024, 16)
y = layer(torch.randn(4096, 1024))
print(tuple(y.shape))
# > (4096, 16)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    x = torch.randn(4096, 1024)
    # He init keeps the second moment of a ReLU layer's output at that of its input: E[y^2] = 1.
    bad = Buggy(1024, 16)(x).square().mean().sqrt().item()
    good = Projection(1024, 16)(x).square().mean().sqrt().item()
    assert 0.9 < good < 1.1
    assert 7 < bad / good < 9  # sqrt(1024 / 16) = 8
    # mode="fan_out" is the other fix for the (in, out) layout.
    w = torch.empty(1024, 16)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert 0.9 < torch.relu(x @ w).square().mean().sqrt().item() < 1.1


if __name__ == "__main__":
    _check()
