"""A harness that explains output differences: record every layer in two runs, report the first to diverge."""

# --8<-- [start:demo]
import copy

import torch
from torch import nn


def record_layers(model, x):
    """Each submodule's output, in execution order."""
    outputs = {}
    hooks = [
        module.register_forward_hook(
            lambda mod, args, out, name=name: outputs.__setitem__(
                name, out.detach().clone()
            )
        )
        for name, module in model.named_modules()
        if name
    ]
    with torch.no_grad():
        model(x)
    for hook in hooks:
        hook.remove()
    return outputs


def first_divergence(reference, candidate, rtol=1e-5, atol=1e-6):
    for name, ref in reference.items():
        if not torch.allclose(ref, candidate[name], rtol=rtol, atol=atol):
            return name, (ref - candidate[name]).abs().max().item()
    return None


model = nn.Sequential(
    nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 4)
).eval()
x = torch.randn(8, 16)
baseline = record_layers(model, x)
# same build, same input
print(first_divergence(baseline, record_layers(model, x)))
# > None

upgraded = copy.deepcopy(model)
# stands in for a kernel that changed between versions or GPUs
upgraded[3].approximate = "tanh"
name, max_abs = first_divergence(baseline, record_layers(upgraded, x))
print("first divergent layer:", name, type(upgraded[int(name)]).__name__)
# > first divergent layer: 3 GELU
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Everything before layer 3 is identical; the gap is small but real, and it propagates.
    new = record_layers(upgraded, x)
    for earlier in ("0", "1", "2"):
        assert torch.equal(baseline[earlier], new[earlier])
    assert 0 < max_abs < 1e-2
    assert not torch.equal(baseline["4"], new["4"])
    # A looser tolerance can accept the change: tolerances are a decision, not a detail.
    assert first_divergence(baseline, new, rtol=0, atol=1e-2) is None


if __name__ == "__main__":
    _check()
