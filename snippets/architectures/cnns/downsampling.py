"""Pooling vs strided conv: no parameters vs learned; both alias; max pool's gradient is sparse."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

x = torch.randn(1, 8, 16, 16, requires_grad=True)
avg = F.avg_pool2d(x, 2)
depthwise = F.conv2d(x, torch.full((8, 1, 2, 2), 0.25), stride=2, groups=8)
print(torch.allclose(avg, depthwise))  # average pooling = fixed depthwise conv
# > True
F.max_pool2d(x, 2).sum().backward()
print((x.grad != 0).sum().item(), "of", x.numel())  # one per window
# > 512 of 2048
strided = nn.Conv2d(64, 64, 3, stride=2, padding=1)
print(sum(p.numel() for p in strided.parameters()))  # pooling has 0
# > 36928
# --8<-- [end:demo]

# --8<-- [start:aliasing]
import torch
import torch.nn.functional as F

signal = torch.tensor([1.0, 0.0] * 8).view(1, 1, 1, 16)
shifted = torch.roll(signal, 1, dims=-1)  # a one-pixel shift
for s in (signal, shifted):
    sub = s[..., ::2]  # what a stride-2 1x1 conv sees
    print(sub.mean().item(), F.avg_pool2d(s, (1, 2)).mean().item())
# > 1.0 0.5
# > 0.0 0.5
# --8<-- [end:aliasing]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch import nn as tnn

    assert (x.grad != 0).sum().item() == avg.numel()
    assert sum(p.numel() for p in tnn.MaxPool2d(2).parameters()) == 0
    # Max pool on the alternating signal is all 1 before and after the shift.
    assert F.max_pool2d(signal, (1, 2)).mean() == F.max_pool2d(shifted, (1, 2)).mean() == 1.0
    # A stride-2 1x1 conv flips from all 1 to all 0.
    one = torch.ones(1, 1, 1, 1)
    assert F.conv2d(signal, one, stride=2).unique().tolist() == [1.0]
    assert F.conv2d(shifted, one, stride=2).unique().tolist() == [0.0]
    # Global average pooling makes the head independent of the input size.
    gap = tnn.AdaptiveAvgPool2d(1)
    assert gap(torch.randn(1, 512, 7, 7)).shape == gap(torch.randn(1, 512, 13, 9)).shape == (1, 512, 1, 1)


if __name__ == "__main__":
    _check()
