"""nn.Sequential covers a straight chain of one-input layers; a skip connection or several inputs need a subclass."""

# --8<-- [start:sequential]
from collections import OrderedDict

from torch import nn

mlp = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
named = nn.Sequential(
    OrderedDict(fc1=nn.Linear(4, 16), act=nn.ReLU(), fc2=nn.Linear(16, 2))
)
print(list(mlp.state_dict())[:2], list(named.state_dict())[:2])
# > ['0.weight', '0.bias'] ['fc1.weight', 'fc1.bias']
print(mlp[:2])  # slicing gives a Sequential: handy for feature extraction
# > Sequential(
# >   (0): Linear(in_features=4, out_features=16, bias=True)
# >   (1): ReLU()
# > )
# --8<-- [end:sequential]

# --8<-- [start:subclass]
import torch
from torch import nn


class Residual(nn.Module):
    """x + f(x): a skip connection is control flow Sequential can't express."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.f = nn.Sequential(
            nn.LayerNorm(width), nn.Linear(width, width), nn.GELU()
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.f(x)


# the mix is common
net = nn.Sequential(
    nn.Linear(4, 16), Residual(16), Residual(16), nn.Linear(16, 2)
)
print(net(torch.randn(3, 4)).shape)
# > torch.Size([3, 2])
# --8<-- [end:subclass]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Sequential.forward takes exactly one input and feeds each output to the next module.
    x = torch.randn(5, 4)
    torch.testing.assert_close(mlp(x), mlp[2](mlp[1](mlp[0](x))))
    with pytest.raises(TypeError, match=r"forward\(\) takes 2 positional arguments but 3 were given"):
        mlp(x, x)
    # A named and an indexed Sequential hold the same layers under different state_dict keys.
    assert list(named.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "fc1.weight"'):
        named.load_state_dict(mlp.state_dict())
    assert isinstance(mlp[:2], nn.Sequential) and len(mlp[:2]) == 2
    assert mlp[:2][0] is mlp[0]  # a slice shares the layers, it copies nothing
    # The residual block really adds its input.
    block = Residual(16)
    h = torch.randn(2, 16)
    torch.testing.assert_close(block(h), h + block.f(h))
    assert len(list(net.parameters())) == 2 + 2 * 4 + 2
    # A Sequential can grow: append, insert and extend.
    grown = nn.Sequential(nn.Linear(2, 2))
    grown.append(nn.ReLU())
    grown.insert(0, nn.Identity())
    grown.extend([nn.Linear(2, 1)])
    assert [type(m).__name__ for m in grown] == ["Identity", "Linear", "ReLU", "Linear"]


if __name__ == "__main__":
    _check()
