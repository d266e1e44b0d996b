"""Parameter groups: no weight decay on biases and norm weights, and a lower learning rate for a pretrained backbone."""

# --8<-- [start:no_decay]
import torch
from torch import nn


def param_groups(model: nn.Module, weight_decay: float) -> list[dict]:
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue  # frozen parameters stay out of the optimizer
        # biases and norm scales are 1-D
        (no_decay if p.ndim < 2 else decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


model = nn.Sequential(
    nn.Linear(16, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 4)
)
# lr: default for all groups
optimizer = torch.optim.AdamW(param_groups(model, weight_decay=0.05), lr=1e-3)
for group in optimizer.param_groups:
    print(len(group["params"]), group["weight_decay"], group["lr"])
# > 2 0.05 0.001
# > 4 0.0 0.001
# --8<-- [end:no_decay]

# --8<-- [start:per_group_lr]
import torch
from torch import nn

# stand-ins: a pretrained trunk and a new head
backbone, head = nn.Linear(16, 32), nn.Linear(32, 4)
optimizer = torch.optim.AdamW(
    [
        {"params": backbone.parameters(), "lr": 1e-5},
        {"params": head.parameters()},
    ],
    lr=1e-3,
)
print([group["lr"] for group in optimizer.param_groups])
# > [1e-05, 0.001]
# --8<-- [end:per_group_lr]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The groups hold the two Linear weights vs the two biases + LayerNorm weight and bias.
    decay, no_decay = (g["params"] for g in param_groups(model, 0.05))
    decay_ids = {id(p) for p in decay}
    names = {name for name, p in model.named_parameters() if id(p) not in decay_ids}
    assert names == {"0.bias", "1.weight", "1.bias", "3.bias"}
    # Every parameter sits in exactly one group; a duplicate is refused.
    assert len(decay) + len(no_decay) == len(list(model.parameters()))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        torch.optim.AdamW([{"params": decay}, {"params": decay[:1]}])
    # The groups behave differently: with zero grads only the decay group shrinks, by exactly (1 - lr * wd).
    grouped = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3
    )
    before = [p.detach().clone() for p in decay + no_decay]
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    grouped.step()
    for p, b in zip(decay, before[: len(decay)], strict=True):
        torch.testing.assert_close(p.detach(), b * (1 - 1e-3 * 0.05))
    for p, b in zip(no_decay, before[len(decay) :], strict=True):
        assert torch.equal(p.detach(), b)
    # Frozen parameters are skipped by the filter.
    model[0].requires_grad_(False)
    frozen_decay, frozen_no_decay = (g["params"] for g in param_groups(model, 0.05))
    assert len(frozen_decay) == 1 and len(frozen_no_decay) == 3
    # A frozen parameter left in an optimizer is skipped entirely (grad None), weight decay included.
    frozen_weight = model[0].weight.detach().clone()
    model[0].weight.grad = None
    grouped.step()
    assert torch.equal(model[0].weight, frozen_weight)
    # Swapping a layer after building the optimizer: the new parameters are not in it and never train.
    model[3] = nn.Linear(32, 4)
    held = {id(p) for g in grouped.param_groups for p in g["params"]}
    assert all(id(p) not in held for p in model[3].parameters())
    # add_param_group adds a group later (e.g. when unfreezing), with the optimizer's defaults filled in.
    extra = nn.Parameter(torch.zeros(2))
    optimizer.add_param_group({"params": [extra]})
    assert optimizer.param_groups[-1]["lr"] == 1e-3 and optimizer.param_groups[-1]["weight_decay"] == 0.01
    # A scheduler scales each group's own lr: the 100x ratio survives.
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    optimizer.step()
    scheduler.step()
    assert [g["lr"] for g in optimizer.param_groups] == [5e-06, 5e-04, 5e-04]


if __name__ == "__main__":
    _check()
