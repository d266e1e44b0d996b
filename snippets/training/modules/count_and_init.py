"""Count parameters (all vs trainable) and apply a custom initialization with Module.apply."""

# --8<-- [start:count]
from torch import nn

model = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
total = sum(p.numel() for p in model.parameters())
print(total)  # (128*64 + 64) + (64*10 + 10)
# > 8906
model[0].requires_grad_(False)  # freeze the first layer
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(trainable)
# > 650
# --8<-- [end:count]

# --8<-- [start:init]
import torch
from torch import nn


def init_weights(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        # He init for ReLU nets
        nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
        nn.init.zeros_(module.bias)


net = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
# visits every submodule (children first), then net itself
net.apply(init_weights)
print(
    all(
        torch.count_nonzero(m.bias) == 0
        for m in net
        if isinstance(m, nn.Linear)
    )
)
# > True
# --8<-- [end:init]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Counting: Linear(in, out) has in*out + out parameters; Linear(128, 64) alone is the classic 8256.
    assert sum(p.numel() for p in nn.Linear(128, 64).parameters()) == 8256
    assert total == 128 * 64 + 64 + 64 * 10 + 10
    assert trainable == 64 * 10 + 10
    assert sum(p.numel() for p in nn.Conv2d(3, 16, 3).parameters()) == 448
    # parameters() de-duplicates a shared (tied) tensor, so counting through it does not double count.
    shared = nn.Linear(4, 4)
    tied = nn.Sequential(shared, shared)
    assert sum(p.numel() for p in tied.parameters()) == 20
    # The default Linear init is uniform in +-1/sqrt(fan_in) (kaiming_uniform_ with a=sqrt(5)), for weight and bias.
    default = nn.Linear(512, 256)
    bound = 1 / 512**0.5
    assert default.weight.abs().max() <= bound and default.bias.abs().max() <= bound
    assert default.weight.abs().max() > 0.9 * bound
    conv = nn.Conv2d(3, 16, 3)  # fan_in = 3 * 3 * 3
    assert conv.weight.abs().max() <= 1 / 27**0.5 and conv.bias.abs().max() <= 1 / 27**0.5
    # Kaiming normal (fan_in, ReLU gain): std = sqrt(2 / fan_in); checked on the 512 -> 256 layer.
    std = net[0].weight.std().item()
    assert abs(std - (2 / 512) ** 0.5) < 0.003
    assert net[2].weight.std().item() > (2 / 512) ** 0.5  # smaller fan_in, wider init
    # apply visits children before the module itself, and returns the module.
    visited: list[str] = []
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited == ["Linear", "ReLU", "Linear", "Sequential"]
    # Assigning a plain tensor over a registered Parameter is refused.
    import pytest

    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch\.FloatTensor' as parameter 'weight'"):
        lin.weight = torch.randn(2, 2)
    # Assigning a new Parameter works, but an optimizer built earlier still holds the old one.
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    lin.weight = nn.Parameter(torch.zeros(2, 2))
    assert all(p is not lin.weight for p in opt.param_groups[0]["params"])
    # nn.init functions run without recording autograd history.
    assert net[0].weight.grad_fn is None and net[0].weight.is_leaf


if __name__ == "__main__":
    _check()
