"""Conv parameters and FLOPs: groups divide both; depthwise-separable saves about 1/C_out + 1/k^2."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

standard = nn.Conv2d(64, 128, 3, padding=1)
grouped = nn.Conv2d(64, 128, 3, padding=1, groups=4)
separable = nn.Sequential(
    nn.Conv2d(64, 64, 3, padding=1, groups=64),  # depthwise
    nn.Conv2d(64, 128, 1),  # pointwise
)
x = torch.randn(1, 64, 56, 56)
for name, m in [("std", standard), ("g=4", grouped), ("dw-sep", separable)]:
    with FlopCounterMode(display=False) as fc:
        m(x)
    n = sum(p.numel() for p in m.parameters())
    print(f"{name:6} {n:>6,} params {fc.get_total_flops():>11,} FLOPs")
# > std    73,856 params 462,422,016 FLOPs
# > g=4    18,560 params 115,605,504 FLOPs
# > dw-sep  8,960 params  54,992,896 FLOPs
print(tuple(grouped.weight.shape), tuple(separable[0].weight.shape))
# > (128, 16, 3, 3) (64, 1, 3, 3)
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    def flops(m, inp):
        with FlopCounterMode(display=False) as counter:
            m(inp)
        return counter.get_total_flops()

    hw = 56 * 56
    assert flops(standard, x) == 2 * hw * 128 * 64 * 9  # 2 * MACs, bias not counted
    assert flops(grouped, x) == 2 * hw * 128 * 16 * 9
    assert flops(separable, x) == 2 * hw * (64 * 9 + 128 * 64)
    assert standard.weight.shape == (128, 64, 3, 3)
    assert sum(p.numel() for p in standard.parameters()) == 128 * 64 * 9 + 128
    # An elementwise op adds nothing to the count.
    assert flops(nn.Sequential(standard, nn.ReLU()), x) == flops(standard, x)
    # The ResNet stem.
    stem = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
    assert flops(stem, torch.randn(1, 3, 224, 224)) == 236_027_904 == 2 * 112 * 112 * 64 * 3 * 49
    # The ratio is about 1/C_out + 1/k^2.
    ratio = flops(standard, x) / flops(separable, x)
    assert abs(ratio - 1 / (1 / 128 + 1 / 9)) < 0.1 and ratio > 8.4
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(30, 64, 3, groups=4)


if __name__ == "__main__":
    _check()
