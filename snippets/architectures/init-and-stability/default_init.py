"""nn.Linear's default init is U(+-1/sqrt(fan_in)), not He; residual branches need scaling or a zero init."""

# --8<-- [start:demo]
import inspect
import math

from torch import nn

lin = nn.Linear(512, 256)
print(round(lin.weight.abs().max().item(), 4), round(1 / math.sqrt(512), 4))
# > 0.0442 0.0442
print(round(lin.weight.std().item(), 4), round(1 / math.sqrt(3 * 512), 4))
# > 0.0255 0.0255
print("math.sqrt(5)" in inspect.getsource(nn.Linear.reset_parameters))
# > True
inside = nn.Transformer(64, 2, 1, 1, dim_feedforward=256, batch_first=True)
alone = nn.TransformerEncoderLayer(64, 2, dim_feedforward=256)
print(round(alone.linear1.weight.abs().max().item(), 3),  # 1/sqrt(64)
      round(inside.encoder.layers[0].linear1.weight.abs().max().item(), 3))
# > 0.125 0.137
# --8<-- [end:demo]

# --8<-- [start:residual]
import math

import torch

L, d = 48, 256
for scale in (1.0, 1 / math.sqrt(L)):
    x = torch.randn(4096, d)
    for _ in range(L):
        x = x + scale * torch.randn(4096, d)  # a unit-variance branch
    print(round(x.var().item()))
# > 49
# > 2
# --8<-- [end:residual]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch
    import torchvision

    assert lin.bias.abs().max() <= 1 / math.sqrt(512)
    # nn.Transformer re-initializes with Xavier: bound sqrt(6 / (64 + 256)).
    assert abs(inside.encoder.layers[0].linear1.weight.abs().max() - math.sqrt(6 / 320)) < 2e-3
    # MHA's packed in_proj is Xavier over (3E, E), biases zero.
    mha = nn.MultiheadAttention(64, 4)
    assert mha.in_proj_weight.abs().max() <= math.sqrt(6 / 256) and mha.in_proj_bias.abs().sum() == 0
    # nn.Embedding starts at N(0, 1).
    assert abs(nn.Embedding(10000, 64).weight.std().item() - 1.0) < 0.01
    # zero_init_residual: every bn2.weight is zero, so a block starts as ReLU(x).
    net = torchvision.models.resnet18(zero_init_residual=True).eval()
    assert all((m.bn2.weight == 0).all() for m in net.modules() if isinstance(m, torchvision.models.resnet.BasicBlock))
    block = net.layer1[0]
    x = torch.randn(1, 64, 8, 8)
    torch.testing.assert_close(block(x), torch.relu(x))
    resnet_source = inspect.getsource(torchvision.models.resnet)
    assert 'kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")' in resnet_source


if __name__ == "__main__":
    _check()
