"""Two anti-patterns a profile exposes on any device: one tiny op per row, and NCHW layout where convs want NHWC."""

# --8<-- [start:tiny_ops]
import torch
from torch.profiler import ProfilerActivity, profile

x, w = torch.randn(256, 64), torch.randn(64)


def per_row(x):  # one small op per row: on a GPU, 256 kernel launches
    return torch.stack([row * w for row in x])


def vectorized(x):  # one op over the whole batch: one launch
    return x * w


for fn in (per_row, vectorized):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        _ = fn(x)
    calls = {e.key: e.count for e in prof.key_averages()}
    print(f"{fn.__name__:10} aten::mul calls={calls['aten::mul']}")
# > per_row    aten::mul calls=256
# > vectorized aten::mul calls=1
# --8<-- [end:tiny_ops]

# --8<-- [start:channels_last]
import torch
from torch import nn

conv = nn.Conv2d(3, 16, kernel_size=3, padding=1)
conv = conv.to(memory_format=torch.channels_last)
# the same shape, with NHWC strides
images = torch.randn(8, 3, 32, 32).to(memory_format=torch.channels_last)
print(images.shape, images.stride())
# > torch.Size([8, 3, 32, 32]) (3072, 1, 96, 3)
# the layout carries through the convolution
print(conv(images).is_contiguous(memory_format=torch.channels_last))
# > True
# --8<-- [end:channels_last]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Same numbers either way: the per-row loop is only slower.
    torch.testing.assert_close(per_row(x), vectorized(x))
    # channels_last changes strides, not shapes or values; the conv result matches the NCHW conv.
    nchw = images.contiguous()
    assert nchw.stride() == (3072, 1024, 32, 1) and not images.is_contiguous()
    torch.testing.assert_close(conv(images), nn.functional.conv2d(nchw, conv.weight.contiguous(), conv.bias, padding=1))
    # cuDNN autotuning is off by default (turn it on only for fixed input shapes).
    assert torch.backends.cudnn.benchmark is False


if __name__ == "__main__":
    _check()
