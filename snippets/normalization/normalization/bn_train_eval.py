"""BatchNorm in train vs eval mode, the batch-of-one error, and why eval() freezes nothing."""

# --8<-- [start:modes]
import torch
from torch import nn

# statistics only, no learned scale and shift
bn = nn.BatchNorm1d(1, affine=False)
batch = torch.tensor([[1.0], [3.0], [5.0], [7.0]])

# train mode: normalized with this batch's mean 4 and variance 5
print(bn(batch).flatten())
# > tensor([-1.3416, -0.4472,  0.4472,  1.3416])
# the same two first samples, in a batch of two: other outputs
print(bn(batch[:2]).flatten())
# > tensor([-1.0000,  1.0000])
# each call moved the running stats 10 % of the way
print(bn.running_mean, bn.running_var)
# > tensor([0.5600]) tensor([1.6100])

# eval mode: the running stats, the same for every batch, and no more updates
bn.eval()
print(bn(batch[:2]).flatten(), bn(batch[:1]).flatten())
# > tensor([0.3468, 1.9230]) tensor([0.3468])
# --8<-- [end:modes]

modes_bn, modes_batch = bn, batch

# --8<-- [start:batch_of_one]
import torch
from torch import nn

bn = nn.BatchNorm1d(3)
try:
    # training mode, one sample: one value per channel, no variance
    bn(torch.randn(1, 3))
except ValueError as err:
    print(str(err).split(",")[0])
# > Expected more than 1 value per channel when training

bn.eval()
print(bn(torch.randn(1, 3)).shape)  # eval mode uses the running stats: fine
# > torch.Size([1, 3])
# one image still has 16 values per channel
print(nn.BatchNorm2d(3)(torch.randn(1, 3, 4, 4)).shape)
# > torch.Size([1, 3, 4, 4])
# --8<-- [end:batch_of_one]

# --8<-- [start:eval_not_frozen]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
gamma_before = model[1].weight.detach().clone()

model.eval()  # BatchNorm now uses its running stats and stops updating them
loss = model(torch.randn(8, 4)).pow(2).mean()
print(loss.requires_grad)  # eval() does not switch autograd off
# > True
loss.backward()
optimizer.step()
# gamma got a gradient and was updated
print(torch.equal(model[1].weight, gamma_before))
# > False
print(model[1].num_batches_tracked)  # only the running stats stayed put
# > tensor(0)
# --8<-- [end:eval_not_frozen]

eval_model, eval_gamma_before = model, gamma_before

# --8<-- [start:freeze_recipe]
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()
        )
        self.head = nn.Linear(8, 2)
        for module in self.features.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.requires_grad_(False)  # freeze gamma and beta once

    def train(self, mode: bool = True) -> "Net":
        # sets every submodule's mode, BatchNorm included...
        super().train(mode)
        for module in self.features.modules():
            if isinstance(module, nn.BatchNorm2d):
                # ...so put BatchNorm back to its running stats every time
                module.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


model = Net()
model.train()  # what every training loop calls at the start of an epoch
bn = model.features[1]
print(bn.training, bn.weight.requires_grad)
# > False False
model(torch.randn(2, 3, 8, 8)).sum().backward()
# no stats update, no gradient for gamma
print(bn.num_batches_tracked, bn.weight.grad)
# > tensor(0) None
# --8<-- [end:freeze_recipe]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Train mode: batch stats (biased var), running stats = 0.9 * old + 0.1 * batch (UNBIASED var).
    fresh = nn.BatchNorm1d(1, affine=False)
    out = fresh(modes_batch)
    torch.testing.assert_close(
        out, (modes_batch - 4.0) / torch.sqrt(torch.tensor(5.0) + 1e-5)
    )
    torch.testing.assert_close(fresh.running_mean, torch.tensor([0.4]))
    torch.testing.assert_close(
        fresh.running_var, torch.tensor([0.9 + 0.1 * 20 / 3])
    )
    # Eval: the running stats, per sample, independent of the batch; no more updates.
    assert not modes_bn.training and modes_bn.num_batches_tracked.item() == 2
    expected = (modes_batch - 0.56) / torch.sqrt(torch.tensor(1.61) + 1e-5)
    torch.testing.assert_close(modes_bn(modes_batch), expected)
    torch.testing.assert_close(
        modes_bn(modes_batch)[1:2], modes_bn(modes_batch[1:2])
    )
    assert modes_bn.num_batches_tracked.item() == 2

    # Batch of one: the error, also from BatchNorm2d when one image has 1x1 spatial size ...
    with pytest.raises(
        ValueError,
        match=r"Expected more than 1 value per channel when training",
    ):
        nn.BatchNorm1d(3)(torch.randn(1, 3))
    with pytest.raises(
        ValueError,
        match=r"Expected more than 1 value per channel when training",
    ):
        nn.BatchNorm2d(3)(torch.randn(1, 3, 1, 1))
    # ... while one 4x4 image runs, but is then normalized per image: it equals InstanceNorm (no batch stats at all).
    image = torch.randn(1, 3, 4, 4)
    torch.testing.assert_close(
        nn.BatchNorm2d(3, affine=False)(image),
        nn.InstanceNorm2d(3)(image),
        atol=1e-5,
        rtol=1e-5,
    )

    # eval() froze nothing: gamma and beta still require grad, got gradients and moved; the output required grad.
    bn = eval_model[1]
    assert bn.weight.requires_grad and bn.bias.requires_grad
    assert bn.weight.grad is not None and bn.weight.grad.abs().sum() > 0
    assert not torch.equal(bn.weight, eval_gamma_before)
    assert torch.equal(bn.running_mean, torch.zeros(4)) and torch.equal(
        bn.running_var, torch.ones(4)
    )
    assert bn.bias.grad is not None and bn.bias.grad.abs().sum() > 0
    assert bn.num_batches_tracked.item() == 0

    # The whole claim, on a layer with non-trivial stats: in eval mode gamma and
    # beta get exactly the gradient of the fixed affine map built from the
    # running stats (no path through batch statistics), both move under SGD,
    # and the running stats and counter stay put.
    bn19 = nn.BatchNorm1d(4)
    with torch.no_grad():
        bn19.running_mean.uniform_(-1, 1)
        bn19.running_var.uniform_(0.5, 2.0)
        bn19.weight.uniform_(0.5, 1.5)
        bn19.bias.uniform_(-1, 1)
    mean19, var19 = bn19.running_mean.clone(), bn19.running_var.clone()
    gamma19, beta19 = bn19.weight.detach().clone(), bn19.bias.detach().clone()
    bn19.eval()
    x19 = torch.randn(8, 4, requires_grad=True)
    bn19(x19).pow(2).mean().backward()
    inv_std = 1 / torch.sqrt(var19 + bn19.eps)
    x_hat = (x19.detach() - mean19) * inv_std
    dy = 2 * (gamma19 * x_hat + beta19) / x19.numel()
    torch.testing.assert_close(bn19.weight.grad, (dy * x_hat).sum(dim=0))
    torch.testing.assert_close(bn19.bias.grad, dy.sum(dim=0))
    torch.testing.assert_close(x19.grad, dy * gamma19 * inv_std)
    torch.optim.SGD(bn19.parameters(), lr=0.1).step()
    assert not torch.equal(bn19.weight, gamma19)
    assert not torch.equal(bn19.bias, beta19)
    assert torch.equal(bn19.running_mean, mean19)
    assert torch.equal(bn19.running_var, var19)
    assert bn19.num_batches_tracked.item() == 0
    # In train mode the input gradient also flows through the batch mean and
    # variance, so it differs from the eval-mode one.
    x_train = x19.detach().clone().requires_grad_(True)
    bn19.train()(x_train).pow(2).mean().backward()
    assert not torch.allclose(x_train.grad, x19.grad, atol=1e-4)

    # Calling model.train() undoes a bare bn.eval(): why the recipe overrides train().
    plain = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
    plain[1].eval()
    plain[1].requires_grad_(False)
    plain.train()
    assert plain[1].training and not plain[1].weight.requires_grad
    plain(torch.randn(2, 3, 8, 8))
    assert (
        plain[1].num_batches_tracked.item() == 1
    )  # requires_grad_(False) alone did not stop the stats

    # The recipe: stats and gamma/beta fixed through train(); the rest of the model still trains; eval() still works.
    net = Net()
    net.train()
    running = net.features[1].running_mean.clone()
    net(torch.randn(2, 3, 8, 8)).sum().backward()
    assert torch.equal(net.features[1].running_mean, running)
    assert (
        net.features[0].weight.grad is not None
        and net.head.weight.grad is not None
    )
    assert net.training and net.head.training and not net.features[1].training
    assert net.eval() is net and not any(m.training for m in net.modules())
    # torchvision's FrozenBatchNorm2d (used by its detection models) holds all four tensors as buffers: nothing trains.
    from torchvision.ops import FrozenBatchNorm2d

    frozen = FrozenBatchNorm2d(8)
    assert list(frozen.parameters()) == []
    assert set(dict(frozen.named_buffers())) == {
        "weight",
        "bias",
        "running_mean",
        "running_var",
    }


if __name__ == "__main__":
    _check()
