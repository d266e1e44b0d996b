"""Which axes each normalization layer averages over: BatchNorm, LayerNorm, GroupNorm and RMSNorm, by hand."""

# --8<-- [start:batchnorm]
import torch
from torch import nn

x = torch.randn(8, 3, 5, 5)  # (N, C, H, W): 8 images, 3 channels
bn = nn.BatchNorm2d(3)  # training mode: normalizes with this batch's statistics

# one mean per channel, over N, H and W
mean = x.mean(dim=(0, 2, 3), keepdim=True)
var = x.var(dim=(0, 2, 3), keepdim=True, unbiased=False)
print(mean.shape)
# > torch.Size([1, 3, 1, 1])
print(torch.allclose(bn(x), (x - mean) / torch.sqrt(var + bn.eps), atol=1e-5))
# > True
# affine params and running stats: per channel
print(bn.weight.shape, bn.running_mean.shape)
# > torch.Size([3]) torch.Size([3])
# --8<-- [end:batchnorm]

bn_x = x

# --8<-- [start:layernorm]
import torch
from torch import nn

tokens = torch.randn(2, 4, 6)  # (batch, sequence, features)
# normalizes over the last dimension: each token on its own
ln = nn.LayerNorm(6)

mean = tokens.mean(dim=-1, keepdim=True)
var = tokens.var(dim=-1, keepdim=True, unbiased=False)
print(mean.shape)  # one mean per token
# > torch.Size([2, 4, 1])
print(
    torch.allclose(
        ln(tokens), (tokens - mean) / torch.sqrt(var + ln.eps), atol=1e-5
    )
)
# > True

other = tokens.clone()
other[1] = 100 * torch.randn(4, 6)  # change the second sequence completely
# the first one's output does not move
print(torch.equal(ln(tokens)[0], ln(other)[0]))
# > True
# --8<-- [end:layernorm]

ln_tokens, ln_layer = tokens, ln

# --8<-- [start:group_rms]
import torch
from torch import nn

x = torch.randn(2, 4, 3, 3) + 5  # (N, C, H, W), shifted away from zero
# per sample, per group of 2 channels
gn = nn.GroupNorm(num_groups=2, num_channels=4)

groups = x.reshape(2, 2, -1)  # (N, groups, channels_per_group * H * W)
mean = groups.mean(dim=-1, keepdim=True)
var = groups.var(dim=-1, keepdim=True, unbiased=False)
by_hand = ((groups - mean) / torch.sqrt(var + gn.eps)).reshape_as(x)
print(torch.allclose(gn(x), by_hand, atol=1e-5))
# > True

# rescales by the root mean square: no mean subtracted, no bias
rms = nn.RMSNorm(3)
row = x[0, 0]  # three rows of three features
by_hand = row / torch.sqrt(
    row.pow(2).mean(dim=-1, keepdim=True) + torch.finfo(row.dtype).eps
)
print(torch.allclose(rms(row), by_hand, atol=1e-5))
# > True
# RMSNorm keeps the offset
print(
    rms(row).mean().item() > 0.9,
    nn.LayerNorm(3)(row).mean().abs().item() < 1e-5,
)
# > True True
# --8<-- [end:group_rms]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # BatchNorm: each channel of the output has mean 0 and (biased) variance 1 over (N, H, W) ...
    bn_layer = nn.BatchNorm2d(3)
    bn_out = bn_layer(bn_x)
    torch.testing.assert_close(
        bn_out.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-5, rtol=0
    )
    torch.testing.assert_close(
        bn_out.var(dim=(0, 2, 3), unbiased=False),
        torch.ones(3),
        atol=1e-3,
        rtol=0,
    )
    # ... but not per sample: sample 0 alone is not normalized.
    assert bn_out[0].mean(dim=(1, 2)).abs().max() > 1e-3
    # The running stats took a step of momentum 0.1 towards the batch stats; running_var uses the UNBIASED variance.
    torch.testing.assert_close(
        bn_layer.running_mean, 0.1 * bn_x.mean(dim=(0, 2, 3))
    )
    torch.testing.assert_close(
        bn_layer.running_var, 0.9 + 0.1 * bn_x.var(dim=(0, 2, 3), unbiased=True)
    )
    assert bn_layer.momentum == 0.1 and bn_layer.eps == 1e-5
    assert set(dict(bn_layer.named_buffers())) == {
        "running_mean",
        "running_var",
        "num_batches_tracked",
    }

    # LayerNorm: no running statistics, and the same output in train and eval mode.
    assert (
        list(ln_layer.buffers()) == []
        and ln_layer.weight.shape == (6,)
        and ln_layer.bias.shape == (6,)
    )
    train_out = ln_layer.train()(ln_tokens)
    assert torch.equal(train_out, ln_layer.eval()(ln_tokens))
    # BatchNorm's training-mode output for sample 0 DOES depend on the other samples.
    fresh = nn.BatchNorm2d(3)
    changed = bn_x.clone()
    changed[1:] = 100 * torch.randn_like(changed[1:])
    assert not torch.allclose(fresh(bn_x)[0], fresh(changed)[0], atol=1e-3)

    # GroupNorm's two extremes: one group is LayerNorm over (C, H, W); one group per channel is InstanceNorm.
    torch.testing.assert_close(
        nn.GroupNorm(1, 4, affine=False)(x),
        nn.LayerNorm([4, 3, 3], elementwise_affine=False)(x),
    )
    torch.testing.assert_close(
        nn.GroupNorm(4, 4, affine=False)(x),
        nn.InstanceNorm2d(4)(x),
        atol=1e-4,
        rtol=1e-4,
    )
    assert (
        gn.weight.shape == (4,) and list(gn.buffers()) == []
    )  # per-channel affine, no running stats

    # RMSNorm: eps defaults to None (finfo(dtype).eps), a weight but no bias, and it is not mean-centred.
    assert (
        rms.eps is None
        and rms.weight.shape == (3,)
        and not hasattr(rms, "bias")
    )
    assert rms(row).mean(dim=-1).min() > 0.9
    # On zero-mean input, RMSNorm and LayerNorm (no affine) agree: the only difference is the centring.
    centred = row - row.mean(dim=-1, keepdim=True)
    torch.testing.assert_close(
        nn.RMSNorm(3, eps=1e-5, elementwise_affine=False)(centred),
        nn.LayerNorm(3, elementwise_affine=False)(centred),
    )


if __name__ == "__main__":
    _check()
