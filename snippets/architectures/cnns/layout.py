"""Conv2d wants NCHW; channels_last changes the strides, never the shape."""

# --8<-- [start:demo]
import torch
from torch import nn

conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
nhwc = torch.randn(2, 32, 32, 3)  # how PIL/NumPy/TF hand you images
x = nhwc.permute(0, 3, 1, 2)  # NCHW: a view, the pixels stay intact
print(tuple(conv(x).shape))
# > (2, 8, 32, 32)

cl = x.contiguous(memory_format=torch.channels_last)
print(tuple(cl.shape), cl.stride())
# > (2, 3, 32, 32) (3072, 1, 96, 3)
print(cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last))
# > False True

conv_cl = conv.to(memory_format=torch.channels_last)  # model *and* input
y = conv_cl(cl)
print(y.is_contiguous(memory_format=torch.channels_last))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    plain = nn.Conv2d(3, 8, kernel_size=3, padding=1)
    plain.load_state_dict(conv.state_dict())
    plain = plain.to(memory_format=torch.contiguous_format)
    # Passing the NHWC-shaped tensor: the channel check fires.
    with pytest.raises(RuntimeError, match=r"expected input\[2, 32, 32, 3\] to have 3 channels, but got 32"):
        plain(nhwc)
    # Unbatched input works.
    assert plain(torch.randn(3, 32, 32)).shape == (8, 32, 32)
    # Same values either way.
    torch.testing.assert_close(y, plain(x.contiguous()))
    # Only the input, or only the weight, in channels_last: the output follows.
    assert plain(cl).is_contiguous(memory_format=torch.channels_last)
    only_w = nn.Conv2d(3, 8, 3, padding=1).to(memory_format=torch.channels_last)
    assert only_w(x.contiguous()).is_contiguous(memory_format=torch.channels_last)
    # view is not permute: it scrambles the pixels silently.
    viewed = nhwc.reshape(2, 3, 32, 32)
    assert viewed.shape == x.shape and not torch.equal(viewed, x)
    # channels_last needs rank 4; Module.to touches only 4-D parameters.
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.randn(3, 32, 32).contiguous(memory_format=torch.channels_last)
    seq = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4, 4))
    seq = seq.to(memory_format=torch.channels_last)
    assert seq[2].weight.is_contiguous()
    assert seq[0].weight.is_contiguous(memory_format=torch.channels_last)
    assert not seq[0].weight.is_contiguous()


if __name__ == "__main__":
    _check()
