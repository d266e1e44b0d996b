"""Output size of conv and pooling: one formula; padding='same' only for stride 1."""

# --8<-- [start:demo]
import torch
from torch import nn


def conv_out(h, k, s=1, p=0, d=1):
    return (h + 2 * p - d * (k - 1) - 1) // s + 1


x = torch.zeros(1, 3, 224, 224)
stem = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3)
print(stem(x).shape[-1], conv_out(224, 7, s=2, p=3))
# > 112 112
print(conv_out(65, 3, s=2, p=1), conv_out(7, 3, 2, 1), conv_out(8, 3, 2, 1))
# > 33 4 4
pool = nn.MaxPool2d(2)  # stride defaults to the kernel size
print(pool.stride, pool(torch.zeros(1, 1, 7, 7)).shape[-1])
# > 2 3
print(nn.MaxPool2d(2, ceil_mode=True)(torch.zeros(1, 1, 7, 7)).shape[-1])
# > 4
# --8<-- [end:demo]

# --8<-- [start:same]
import torch
import torch.nn.functional as F
from torch import nn

try:
    nn.Conv2d(3, 8, kernel_size=3, stride=2, padding="same")
except ValueError as e:
    print(e)
# > padding='same' is not supported for strided convolutions
# --8<-- [end:same]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import itertools

    import pytest

    # The formula against real convolutions and pools over a grid.
    checked = 0
    for h, k, s, p, d in itertools.product((7, 8, 15), (1, 2, 3, 5), (1, 2, 3), (0, 1, 2), (1, 2)):
        if conv_out(h, k, s, p, d) < 1 or p > (k // 2):
            continue
        out = F.conv2d(torch.zeros(1, 1, h, h), torch.zeros(1, 1, k, k), stride=s, padding=p, dilation=d)
        assert out.shape[-1] == conv_out(h, k, s, p, d), (h, k, s, p, d)
        pooled = F.max_pool2d(torch.zeros(1, 1, h, h), k, s, p, d)
        assert pooled.shape[-1] == conv_out(h, k, s, p, d)
        checked += 1
    assert checked > 100
    # Even kernel with 'same': the extra pixel goes right/bottom, and it warns.
    img = torch.randn(1, 2, 9, 9)
    with pytest.warns(UserWarning, match="even kernel lengths and odd dilation may require a zero-padded copy"):
        conv = nn.Conv2d(2, 3, kernel_size=4, padding="same")
        same = conv(img)
    valid = F.conv2d(F.pad(img, (1, 2, 1, 2)), conv.weight, conv.bias)
    other = F.conv2d(F.pad(img, (2, 1, 2, 1)), conv.weight, conv.bias)
    torch.testing.assert_close(same, valid)
    assert not torch.allclose(same, other)
    assert nn.Conv2d(2, 3, 3, padding="valid")(img).shape[-1] == 7


if __name__ == "__main__":
    _check()
