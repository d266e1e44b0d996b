"""Rapid-fire answers for Module 5 that are best given as code."""

# --8<-- [start:dropout_scale]
import torch
from torch import nn

y = nn.Dropout(p=0.5)(torch.ones(1000))  # training mode
print(y.unique())  # dropped, or kept and scaled by 1 / (1 - p)
# > tensor([0., 2.])
# --8<-- [end:dropout_scale]

dropout_y = y

# --8<-- [start:frozen_bn]
import torch
from torch import nn

bn = nn.BatchNorm1d(3).requires_grad_(False)  # "frozen"
bn(torch.randn(8, 3) + 5)  # still in training mode
# the statistics moved anyway
print(bn.running_mean.abs().sum().item() > 0, bn.num_batches_tracked)
# > True tensor(1)
# --8<-- [end:frozen_bn]

frozen_bn = bn

# --8<-- [start:bias_before_bn]
import torch
from torch import nn

x = torch.randn(4, 3, 8, 8)
conv = nn.Conv2d(3, 16, 3)  # with a bias
no_bias = nn.Conv2d(3, 16, 3, bias=False)
no_bias.weight = conv.weight  # the same filters, no bias
bn = nn.BatchNorm2d(16)
# BatchNorm subtracts the mean: the bias cancels
print(torch.allclose(bn(conv(x)), bn(no_bias(x)), atol=1e-5))
# > True
# --8<-- [end:bias_before_bn]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert set(dropout_y.tolist()) <= {0.0, 2.0}
    # Frozen BN: no parameter requires grad, yet the stats took a momentum step towards the batch mean (~5).
    assert not any(p.requires_grad for p in frozen_bn.parameters())
    assert 0.3 < frozen_bn.running_mean.mean().item() < 0.7
    # The bias is exactly a per-channel shift, which BatchNorm's mean subtraction removes.
    assert (
        conv.bias is not None
        and conv.bias.abs().sum() > 0
        and no_bias.bias is None
    )
    torch.testing.assert_close(
        conv(x) - no_bias(x),
        conv.bias.detach()[None, :, None, None].expand(4, 16, 6, 6),
    )


if __name__ == "__main__":
    _check()
