"""ConvTranspose2d is the adjoint of a conv (its input gradient), not its inverse."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

w = torch.randn(4, 3, 3, 3)  # a conv 3 -> 4 channels, stride 2
x, y = torch.randn(1, 3, 8, 8), torch.randn(1, 4, 4, 4)
lhs = (F.conv2d(x, w, stride=2, padding=1) * y).sum()
convT_y = F.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1)
rhs = (x * convT_y).sum()
print(torch.allclose(lhs, rhs))  # <conv x, y> == <x, convT y>
# > True
back = F.conv_transpose2d(F.conv2d(x, w, stride=2, padding=1), w,
                          stride=2, padding=1, output_padding=1)
print(back.shape == x.shape, torch.allclose(back, x))  # not an inverse
# > True False
# --8<-- [end:demo]

# --8<-- [start:sizes]
import torch
from torch import nn

up = nn.ConvTranspose2d(8, 8, kernel_size=3, stride=2, padding=1)
small = torch.zeros(1, 8, 4, 4)  # both 7 and 8 downsample to 4
print(up(small).shape[-1], up(small, output_size=[8, 8]).shape[-1])
# > 7 8
print(tuple(nn.ConvTranspose2d(16, 8, 4).weight.shape))  # (C_in, C_out, k, k)
# > (16, 8, 4, 4)
# --8<-- [end:sizes]

# --8<-- [start:checkerboard]
import torch
import torch.nn.functional as F

ones = torch.ones(1, 1, 6, 6)
k3 = F.conv_transpose2d(ones, torch.ones(1, 1, 3, 3), stride=2)
k4 = F.conv_transpose2d(ones, torch.ones(1, 1, 4, 4), stride=2)
resize = F.conv2d(F.interpolate(ones, scale_factor=2), torch.ones(1, 1, 3, 3))
print(k3[0, 0, 2:6, 2:6].int().tolist())  # uneven overlap: 1, 2, 4
# > [[4, 2, 4, 2], [2, 1, 2, 1], [4, 2, 4, 2], [2, 1, 2, 1]]
print(k4[0, 0, 3:-3, 3:-3].unique().tolist(), resize.unique().tolist())
# > [4.0] [9.0]
# --8<-- [end:checkerboard]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import itertools

    import pytest

    # The size formula on a grid.
    for h, k, s, p, d, op in itertools.product((3, 4, 7), (1, 3, 4), (1, 2, 3), (0, 1), (1, 2), (0, 1)):
        if op >= max(s, d):
            continue
        out = F.conv_transpose2d(torch.zeros(1, 1, h, h), torch.zeros(1, 1, k, k), stride=s, padding=p,
                                 output_padding=op, dilation=d)
        assert out.shape[-1] == (h - 1) * s - 2 * p + d * (k - 1) + op + 1
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(torch.zeros(1, 1, 4, 4), torch.zeros(1, 1, 3, 3), stride=2, output_padding=2)
    # The transposed conv equals autograd's input gradient.
    xg = x.clone().requires_grad_()
    F.conv2d(xg, w, stride=2, padding=1).backward(y)
    torch.testing.assert_close(xg.grad, F.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1))
    torch.testing.assert_close(lhs, rhs)
    assert nn.Conv2d(16, 8, 4).weight.shape == (8, 16, 4, 4)
    assert set(k3[0, 0, 2:-2, 2:-2].unique().tolist()) == {1.0, 2.0, 4.0}
    # k divisible by s evens the counts, not the values: a learned (non-constant) k4 s2 kernel still
    # paints a period-2 pattern on a flat input, while resize-then-conv stays flat whatever its kernel.
    learned = F.conv_transpose2d(ones, torch.randn(1, 1, 4, 4), stride=2)[0, 0, 3:-3, 3:-3]
    torch.testing.assert_close(learned[2:], learned[:-2])  # period 2
    assert learned[0, 0] != learned[0, 1] and learned[0, 0] != learned[1, 0]
    flat = F.conv2d(F.interpolate(ones, scale_factor=2), torch.randn(1, 1, 3, 3))
    torch.testing.assert_close(flat, flat[0, 0, 0, 0].expand_as(flat))
    # PixelShuffle (sub-pixel conv): a random init gives r*r different sub-pixels on a flat input; ICNR
    # (each group of r*r output channels shares one kernel) starts it as a nearest-neighbour resize.
    kernel = torch.randn(1, 1, 3, 3)
    shuffled = F.pixel_shuffle(F.conv2d(ones, torch.randn(4, 1, 3, 3)), 2)
    icnr = F.pixel_shuffle(F.conv2d(ones, kernel.repeat_interleave(4, dim=0)), 2)
    assert shuffled.unique().numel() == 4
    torch.testing.assert_close(icnr, F.interpolate(F.conv2d(ones, kernel), scale_factor=2))
    # k=4, s=2, p=1 doubles the size exactly.
    assert nn.ConvTranspose2d(1, 1, 4, 2, 1)(torch.zeros(1, 1, 5, 5)).shape[-1] == 10


if __name__ == "__main__":
    _check()
