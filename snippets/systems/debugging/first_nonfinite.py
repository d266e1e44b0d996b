"""NaN hunting in the forward pass: forward hooks name the first module whose output is not finite."""

# --8<-- [start:demo]
import torch
from torch import nn


class LogFeatures(nn.Module):
    def forward(self, x):
        return torch.log(x)  # NaN for negative inputs, -inf at 0


model = nn.Sequential(nn.Linear(4, 8), LogFeatures(), nn.Linear(8, 1))
first_bad = []


def check_finite(name):
    def hook(module, args, output):
        if not first_bad and not torch.isfinite(output).all():
            first_bad.append(name)

    return hook


for name, module in model.named_modules():
    if name:  # skip the container itself
        module.register_forward_hook(check_finite(name))

model(torch.randn(16, 4))
print("first non-finite output:", first_bad)
# > first non-finite output: ['1']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Hooks run in execution order: the Linear before is finite, the log is where NaN appears,
    # and everything after it is contaminated.
    x = torch.randn(16, 4)
    h = model[0](x)
    assert torch.isfinite(h).all() and not torch.isfinite(model[1](h)).all()
    assert torch.isnan(model(x)).any()
    assert first_bad == ["1"]


if __name__ == "__main__":
    _check()
