"""A conv as unfold (im2col) + matmul; Conv2d is cross-correlation: the kernel isn't flipped."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

x, w, b = torch.randn(2, 3, 10, 12), torch.randn(5, 3, 3, 3), torch.randn(5)
cols = F.unfold(x, kernel_size=3, padding=1, stride=2)  # (N, C*k*k, L)
print(tuple(cols.shape))
# > (2, 27, 30)
out = w.view(5, -1) @ cols + b[:, None]  # (N, C_out, L)
out = out.view(2, 5, 5, 6)  # L = 5 * 6 output positions
print(torch.allclose(out, F.conv2d(x, w, b, stride=2, padding=1), atol=1e-5))
# > True
# --8<-- [end:demo]

# --8<-- [start:correlation]
import torch
import torch.nn.functional as F

impulse = torch.zeros(1, 1, 5, 5)
impulse[0, 0, 2, 2] = 1.0
kernel = torch.arange(9.0).view(1, 1, 3, 3)
print(F.conv2d(impulse, kernel)[0, 0].int().tolist())  # rotated by 180
# > [[8, 7, 6], [5, 4, 3], [2, 1, 0]]
overlap = F.fold(F.unfold(torch.ones(1, 1, 4, 4), 3, padding=1), (4, 4), 3,
                 padding=1)
print(overlap[0, 0].int().tolist())  # how often each pixel was copied
# > [[4, 6, 6, 4], [6, 9, 9, 6], [6, 9, 9, 6], [4, 6, 6, 4]]
# --8<-- [end:correlation]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.testing.assert_close(out, F.conv2d(x, w, b, stride=2, padding=1), atol=1e-5, rtol=1e-5)
    # A true convolution flips the kernel: correlation with the flipped kernel.
    flipped = F.conv2d(impulse, kernel.flip(-1, -2))[0, 0]
    torch.testing.assert_close(flipped, kernel[0, 0])
    # A weight reshaped in the wrong (k, k, c) order gives a different result.
    wrong = w.permute(0, 2, 3, 1).reshape(5, -1) @ cols + b[:, None]
    assert not torch.allclose(wrong.view(2, 5, 5, 6), out)
    assert overlap.sum() == 9 * 16 - 2 * 4 * 3 * 2 + 4  # every copy counted once


if __name__ == "__main__":
    _check()
