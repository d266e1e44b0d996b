"""Receptive field: the recurrence r += (k-1)*d*jump, checked against the gradient of one output pixel."""

# --8<-- [start:demo]
import torch
from torch import nn


def receptive_field(layers):
    """layers: (kernel, stride, dilation) tuples, input to output."""
    r, jump = 1, 1
    for k, s, d in layers:
        r += (k - 1) * d * jump
        jump *= s
    return r


def measured(layers, size=96):
    convs = [nn.Conv2d(1, 1, k, s, dilation=d) for k, s, d in layers]
    x = torch.ones(1, 1, size, size, requires_grad=True)
    y = nn.Sequential(*convs)(x)
    y[0, 0, y.shape[2] // 2, y.shape[3] // 2].backward()  # one pixel
    rows = x.grad[0, 0].abs().sum(1).nonzero()
    return (rows.max() - rows.min() + 1).item()


stacks = {
    "three 3x3": [(3, 1, 1)] * 3,
    "stem-like": [(7, 2, 1), (3, 2, 1), (3, 1, 1), (3, 1, 1)],
    "dilated": [(3, 1, 1), (3, 1, 2), (3, 1, 4)],
}
for name, layers in stacks.items():
    print(name, receptive_field(layers), measured(layers))
# > three 3x3 7 7
# > stem-like 27 27
# > dilated 15 15
# --8<-- [end:demo]

assert torch  # used above, in functions the next section's import shadows

# --8<-- [start:effective]
import torch
import torch.nn.functional as F

x = torch.zeros(1, 1, 41, 41, requires_grad=True)
y = x
for _ in range(10):  # ten 3x3 layers of ones: theoretical field 21x21
    y = F.conv2d(y, torch.ones(1, 1, 3, 3))
y[0, 0, y.shape[2] // 2, y.shape[3] // 2].backward()
g = x.grad[0, 0]
centre = g[15:26, 15:26]  # the central 11x11: 27 % of the 21x21 area
print((g != 0).sum().item(), f"{(centre.sum() / g.sum()).item():.3f}")
# > 441 0.941
# --8<-- [end:effective]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert receptive_field([(3, 1, 1)] * 3) == 7 == measured([(3, 1, 1)] * 3)
    assert all(receptive_field(v) == measured(v) for v in stacks.values())
    # Adding kernel sizes while ignoring strides gets the stem wrong.
    assert 1 + sum(k - 1 for k, _, _ in stacks["stem-like"]) != receptive_field(stacks["stem-like"])
    assert (g != 0).sum().item() == 21 * 21
    assert centre.sum() / g.sum() > 0.9
    assert 11 * 11 / (21 * 21) < 0.28


if __name__ == "__main__":
    _check()
