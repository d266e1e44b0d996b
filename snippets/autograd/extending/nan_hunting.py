"""Find the op that first produced a NaN: detect_anomaly for backward, finite-checking forward hooks for forward."""

# --8<-- [start:anomaly]
import torch

x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
mask = torch.tensor([0.0, 1.0, 1.0])
(torch.sqrt(x) * mask).sum().backward()  # sqrt'(0) is inf, and inf * 0 is nan
print(x.grad)
# > tensor([   nan, 0.5000, 0.2500])
x.grad = None
with torch.autograd.detect_anomaly():  # debugging only: it slows every op down
    # anomaly mode records each op's forward traceback
    loss = (torch.sqrt(x) * mask).sum()
    try:
        loss.backward()
    except RuntimeError as err:
        # a warning printed before it shows the forward line of the culprit
        print(err)
# > Function 'SqrtBackward0' returned nan values in its 0th output.
# --8<-- [end:anomaly]

# --8<-- [start:forward_check]
import torch
from torch import nn


class Standardize(nn.Module):  # home-made, and missing an epsilon
    def forward(self, x):
        return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)


model = nn.Sequential(
    Standardize(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1)
)


def check_finite(name):
    def hook(module, inputs, output):
        if not torch.isfinite(output).all():
            kind = type(module).__name__
            raise RuntimeError(f"first non-finite output: {name} ({kind})")

    return hook


for name, module in model.named_children():
    module.register_forward_hook(check_finite(name))
# a padding row: std 0, so 0 / 0
batch = torch.cat([torch.randn(3, 4), torch.zeros(1, 4)])
try:
    model(batch)
except RuntimeError as err:
    print(err)
# > first non-finite output: 0 (Standardize)
# --8<-- [end:forward_check]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Without anomaly mode the NaN appears silently in .grad; with it, backward raises at the culprit node,
    # after a warning that carries the forward traceback.
    v = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with torch.autograd.detect_anomaly():
            out = (torch.sqrt(v) * mask).sum()
            with pytest.warns(UserWarning, match="Error detected in SqrtBackward0. Traceback of forward call"):
                with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th"):
                    out.backward()
    assert not torch.is_anomaly_enabled()  # the context manager restores the global flag
    # The fix: keep the input away from the singular point (or mask the input, not the output).
    w = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
    (torch.sqrt(w.clamp_min(1e-12)) * mask).sum().backward()
    assert torch.isfinite(w.grad).all() and w.grad[0].item() == 0.0

    # Anomaly mode checks backward outputs only: a NaN made in the forward is not reported where it was made.
    u = torch.tensor([-1.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning):
        with torch.autograd.detect_anomaly():
            y = torch.log(u)  # log(-1) = nan, silently, in the forward
            assert torch.isnan(y[0])
            y.sum().backward()  # log's backward (1/u) is finite: no error at all
    assert torch.isfinite(u.grad).all()

    # The forward hook names the first module whose output is non-finite; without the padding row all pass.
    with pytest.raises(RuntimeError, match=r"first non-finite output: 0 \(Standardize\)"):
        model(batch)
    assert torch.isfinite(model(batch[:3])).all()
    # Without the hooks the NaN flows on silently: the padding row's final output is NaN.
    plain = nn.Sequential(Standardize(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    assert torch.isnan(plain(batch)[3]).all() and torch.isfinite(plain(batch)[:3]).all()


if __name__ == "__main__":
    _check()
