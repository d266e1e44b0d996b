"""Xavier vs Kaiming: match the init to the activation, or activations vanish or explode with depth."""

# --8<-- [start:demo]
import math

import torch
from torch import nn

print([round(nn.init.calculate_gain(a), 4)
       for a in ("linear", "sigmoid", "tanh", "relu", "selu")])
# > [1, 1, 1.6667, 1.4142, 0.75]


def std_after(depth, init, act, width=256):
    x = torch.randn(1024, width)
    for _ in range(depth):
        w = torch.empty(width, width)
        init(w)
        x = act(x @ w.T)
    return x.std().item()


inits = {
    "default": lambda w: nn.init.kaiming_uniform_(w, a=math.sqrt(5)),
    "xavier": nn.init.xavier_normal_,
    "kaiming": lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu"),
}
for name, init in inits.items():
    print(f"{name:8} {std_after(50, init, torch.relu):.0e}")
# > default  3e-20
# > xavier   9e-09
# > kaiming  6e-01
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert nn.init.calculate_gain("conv2d") == 1
    assert abs(nn.init.calculate_gain("leaky_relu", 0.2) - 1.3868) < 1e-4
    # Fans: Linear (out, in), Conv (C_out, C_in/g, k, k).
    fans = nn.init._calculate_fan_in_and_fan_out
    assert fans(nn.Linear(512, 256).weight) == (512, 256)
    assert fans(nn.Conv2d(64, 128, 3).weight) == (576, 1152)
    assert fans(nn.Conv2d(64, 128, 3, groups=4).weight) == (144, 1152)
    # ReLU: Kaiming keeps unit scale over 50 layers; the others collapse.
    assert 0.3 < std_after(50, inits["kaiming"], torch.relu) < 3
    assert std_after(10, inits["default"], torch.relu) < 1e-3
    assert std_after(50, inits["xavier"], torch.relu) < 1e-5
    # tanh: Xavier x 5/3 keeps it; plain Xavier shrinks.

    def tanh_gain(w):
        return nn.init.xavier_normal_(w, gain=5 / 3)

    assert std_after(50, tanh_gain, torch.tanh) > 0.5
    assert std_after(50, nn.init.xavier_normal_, torch.tanh) < 0.2
    # trunc_normal_ truncates at absolute bounds a=-2, b=2, not at 2 std.
    import inspect

    defaults = inspect.signature(nn.init.trunc_normal_).parameters
    assert (defaults["std"].default, defaults["a"].default, defaults["b"].default) == (1.0, -2.0, 2.0)
    w = torch.empty(100_000)
    nn.init.trunc_normal_(w, std=0.02)
    assert w.abs().max() / 0.02 > 3.5
    nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)
    assert w.abs().max() <= 0.04


if __name__ == "__main__":
    _check()
