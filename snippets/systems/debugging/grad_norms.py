"""Per-layer gradient norms: vanishing gradients in a deep sigmoid stack, and clipping's total norm."""

# --8<-- [start:demo]
import torch
from torch import nn


def layer_grad_norms(model):
    return {
        name: p.grad.norm().item()
        for name, p in model.named_parameters()
        if name.endswith("weight")
    }


layers = []
for _ in range(12):
    layers += [nn.Linear(32, 32), nn.Sigmoid()]
model = nn.Sequential(*layers, nn.Linear(32, 1))
model(torch.randn(64, 32)).pow(2).mean().backward()

norms = layer_grad_norms(model)
first, last = norms["0.weight"], norms["22.weight"]
# the first layer gets ten thousand times less gradient: it barely learns
print(last / first > 1e4)
# > True
# returns the norm before clipping
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
# log it every step: spikes announce divergence
print(torch.isfinite(total).item())
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The norm shrinks with depth, layer after layer (sigmoid' <= 1/4).
    values = [norms[f"{2 * i}.weight"] for i in range(12)]
    assert values[-1] > values[0] * 1e4
    # clip_grad_norm_ returns the total norm over all parameters, measured before it clips.
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    m(torch.randn(8, 4)).sum().backward()
    expected = torch.stack([p.grad.norm() for p in m.parameters()]).norm()
    got = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=1e-3)
    torch.testing.assert_close(got, expected)
    after = torch.stack([p.grad.norm() for p in m.parameters()]).norm()
    assert abs(after.item() - 1e-3) < 1e-5


if __name__ == "__main__":
    _check()
