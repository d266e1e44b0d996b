"""optimizer.state_dict(): per-parameter state (Adam moments, momentum buffers) plus param_groups; resume needs both."""

# --8<-- [start:contents]
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(optimizer.state_dict()["state"])  # empty until the first step
# > {}
model(torch.randn(8, 4)).pow(2).mean().backward()
optimizer.step()
sd = optimizer.state_dict()
print(list(sd))
# > ['state', 'param_groups']
# keyed by position, not by name
print({index: list(state) for index, state in sd["state"].items()})
# > {0: ['step', 'exp_avg', 'exp_avg_sq'], 1: ['step', 'exp_avg', 'exp_avg_sq']}
print(sd["param_groups"][0]["params"], sd["param_groups"][0]["lr"])
# > [0, 1] 0.001
# --8<-- [end:contents]

# --8<-- [start:resume]
import copy

import torch
from torch import nn

x, y = torch.randn(32, 4), torch.randn(32, 1)


def train(
    model: nn.Module, optimizer: torch.optim.Optimizer, steps: int
) -> None:
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


model = nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
train(model, optimizer, 5)
checkpoint = copy.deepcopy(
    {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
)
train(model, optimizer, 5)  # the uninterrupted run

full = nn.Linear(4, 1)
full.load_state_dict(checkpoint["model"])
full_opt = torch.optim.AdamW(full.parameters(), lr=0.05)
# moments and step counts come back
full_opt.load_state_dict(checkpoint["optimizer"])
train(full, full_opt, 5)

weights_only = nn.Linear(4, 1)
weights_only.load_state_dict(checkpoint["model"])
# fresh moments
train(weights_only, torch.optim.AdamW(weights_only.parameters(), lr=0.05), 5)

print(
    torch.equal(full.weight, model.weight),
    torch.equal(weights_only.weight, model.weight),
)
# > True False
# --8<-- [end:resume]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import io

    import pytest

    # The shown AdamW state after one step: step == 1 and moments shaped like the parameters.
    state0 = sd["state"][0]
    assert state0["step"].item() == 1.0 and state0["exp_avg"].shape == (1, 4) and state0["exp_avg_sq"].shape == (1, 4)
    assert sd["param_groups"][0]["weight_decay"] == 0.01 and sd["param_groups"][0]["betas"] == (0.9, 0.999)
    assert sd["param_groups"][0]["decoupled_weight_decay"] is True  # AdamW is Adam with the decoupled flag
    # SGD with momentum keeps a momentum_buffer per parameter (and nothing before the first step).
    lin = nn.Linear(2, 1)
    sgd = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    assert sgd.state_dict()["state"] == {}
    lin(torch.ones(1, 2)).sum().backward()
    sgd.step()
    assert [list(s) for s in sgd.state_dict()["state"].values()] == [["momentum_buffer"], ["momentum_buffer"]]
    torch.testing.assert_close(sgd.state_dict()["state"][0]["momentum_buffer"], torch.ones(1, 2))
    # Resuming with the optimizer state reproduces the run exactly; without it the run differs.
    assert torch.equal(full.weight, model.weight) and torch.equal(full.bias, model.bias)
    assert not torch.allclose(weights_only.weight, model.weight)
    assert full_opt.state_dict()["state"][0]["step"].item() == 10.0
    # Gotcha: optimizer.load_state_dict reuses the given tensors (same device and dtype), so training on
    # mutated the in-memory checkpoint; model.load_state_dict copies. Keep checkpoints on disk or deep-copy.
    assert full_opt.state[full.weight]["exp_avg"] is checkpoint["optimizer"]["state"][0]["exp_avg"]
    assert checkpoint["optimizer"]["state"][0]["step"].item() == 10.0
    assert full.weight.data_ptr() != checkpoint["model"]["weight"].data_ptr()
    # The optimizer state survives torch.save / torch.load(weights_only=True), the default since 2.6.
    buffer = io.BytesIO()
    torch.save(optimizer.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)
    assert loaded["state"][0]["step"].item() == 10.0 and loaded["param_groups"][0]["params"] == [0, 1]
    torch.testing.assert_close(loaded["state"][1]["exp_avg"], optimizer.state[model.bias]["exp_avg"])
    # load_state_dict maps by position and size: a mismatched parameter list is refused.
    mismatch = "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
    with pytest.raises(ValueError, match=mismatch):
        torch.optim.AdamW([nn.Parameter(torch.zeros(3))]).load_state_dict(loaded)


if __name__ == "__main__":
    _check()
