"""Inverted dropout: kept activations are scaled by 1/(1-p) in training, so eval mode is the identity."""

# --8<-- [start:scaling]
import torch
from torch import nn

drop = nn.Dropout(p=0.5)  # a new module is in training mode
x = torch.ones(10_000)
y = drop(x)
print(y.unique())  # every element is dropped, or kept and scaled by 1 / (1 - p)
# > tensor([0., 2.])
print(round(y.mean().item(), 1))  # so the expected activation is unchanged
# > 1.0

drop.eval()
# eval mode: the identity, nothing to rescale at test time
print(torch.equal(drop(x), x))
# > True
# --8<-- [end:scaling]

scaling_y = y

# --8<-- [start:mc_dropout]
import torch
from torch import nn

model = nn.Sequential(
    nn.Linear(4, 16),
    nn.BatchNorm1d(16),
    nn.ReLU(),
    nn.Dropout(0.3),
    nn.Linear(16, 1),
)
model.eval()  # BatchNorm on its running stats...
for module in model.modules():
    if isinstance(module, nn.Dropout):
        module.train()  # ...but Dropout on, for Monte Carlo dropout

x = torch.randn(2, 4)
with torch.inference_mode():
    # 20 stochastic forward passes
    samples = torch.stack([model(x) for _ in range(20)])
# prediction and its uncertainty
mean, spread = samples.mean(dim=0), samples.std(dim=0)
print(mean.shape, bool((spread > 0).all()))
# > torch.Size([2, 1]) True
# --8<-- [end:mc_dropout]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch.nn.functional as F

    # About half the units were dropped, and the kept ones are exactly 1 / (1 - p).
    kept = scaling_y[scaling_y != 0]
    assert torch.equal(kept, torch.full_like(kept, 2.0))
    assert 0.45 < (scaling_y == 0).float().mean().item() < 0.55
    # For any p: kept values are x / (1 - p), and the mean is preserved in expectation.
    for p in (0.1, 0.25, 0.8):
        out = nn.Dropout(p)(torch.ones(100_000))
        torch.testing.assert_close(
            out[out != 0], torch.full_like(out[out != 0], 1 / (1 - p))
        )
        assert abs(out.mean().item() - 1.0) < 0.05
    # Dropout keeps the mean but not the variance: a layer after it sees a larger variance in training than in eval.
    z = torch.randn(200_000)
    assert abs(nn.Dropout(0.5)(z).var().item() - 2 * z.var().item()) < 0.05
    # The functional form follows its `training` argument, not a module's mode (the F.dropout trap).
    assert not torch.equal(
        F.dropout(torch.ones(100)), torch.ones(100)
    )  # training=True by default
    assert torch.equal(
        F.dropout(torch.ones(100), training=False), torch.ones(100)
    )
    # Gradients flow only through the kept units, scaled by the same factor.
    w = torch.ones(1000, requires_grad=True)
    out = nn.Dropout(0.5)(w)
    out.sum().backward()
    torch.testing.assert_close(w.grad, (out != 0).float() * 2.0)

    # MC dropout: BatchNorm stayed in eval (stats untouched), Dropout was on, outputs vary, nothing recorded.
    assert (
        not model[1].training
        and model[3].training
        and model[1].num_batches_tracked.item() == 0
    )
    assert samples.shape == (20, 2, 1) and not samples.requires_grad
    assert (spread > 0).all()
    model.eval()  # all off: deterministic again
    with torch.inference_mode():
        assert torch.equal(model(x), model(x))


if __name__ == "__main__":
    _check()
