"""L2 in the loss vs weight_decay under SGD, Adam and AdamW, and the finite optimum of label smoothing."""

# --8<-- [start:l2_vs_decay]
import torch


def five_steps(
    optimizer_class, l2_in_loss: float = 0.0, weight_decay: float = 0.0
) -> torch.Tensor:
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x = torch.tensor([0.5, 1.0, -1.0])
    optimizer = optimizer_class([w], lr=0.1, weight_decay=weight_decay)
    for _ in range(5):
        optimizer.zero_grad()
        # penalty (λ/2)·‖w‖², gradient λ·w
        loss = (w @ x - 1.0) ** 2 + l2_in_loss / 2 * w.pow(2).sum()
        loss.backward()
        optimizer.step()
    return w.detach()


sgd_l2 = five_steps(torch.optim.SGD, l2_in_loss=0.1)
# SGD: the same update
print(torch.allclose(sgd_l2, five_steps(torch.optim.SGD, weight_decay=0.1)))
# > True
adam_l2 = five_steps(torch.optim.Adam, l2_in_loss=0.1)
# Adam's weight_decay IS L2
print(torch.allclose(adam_l2, five_steps(torch.optim.Adam, weight_decay=0.1)))
# > True
# AdamW decouples it
print(torch.allclose(adam_l2, five_steps(torch.optim.AdamW, weight_decay=0.1)))
# > False
# --8<-- [end:l2_vs_decay]

# --8<-- [start:label_smoothing]
import math

import torch
import torch.nn.functional as F

classes, eps = 3, 0.1
# The smoothed target: (1 - eps) on the true class, plus eps / classes
# everywhere
target = torch.tensor([1 - eps + eps / classes, eps / classes, eps / classes])
# the logit margin whose softmax IS that target: log 28
gap = math.log(target[0] / target[1])
logits = torch.tensor([[gap, 0.0, 0.0]], requires_grad=True)

F.cross_entropy(logits, torch.tensor([0]), label_smoothing=eps).backward()
# smoothed: this finite margin is optimal
print(round(gap, 2), logits.grad.abs().max().item() < 1e-6)
# > 3.33 True
logits.grad = None
F.cross_entropy(logits, torch.tensor([0])).backward()
# plain CE still pushes the true logit up, without end
print(logits.grad[0, 0].item() < 0)
# > True
# --8<-- [end:label_smoothing]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The decay actually did something: with no penalty at all, SGD lands elsewhere.
    assert not torch.allclose(sgd_l2, five_steps(torch.optim.SGD))
    # SGD's weight_decay=λ is the gradient of (λ/2)·‖w‖², not of λ·‖w‖².
    assert not torch.allclose(
        sgd_l2, five_steps(torch.optim.SGD, l2_in_loss=0.2)
    )  # a penalty 0.1·‖w‖²
    # AdamW with weight_decay=λ shrinks w by lr·λ·w per step on top of the Adam step: one step by hand.
    w0 = torch.tensor([1.0, -2.0, 3.0])
    x = torch.tensor([0.5, 1.0, -1.0])
    g = 2 * (w0 @ x - 1.0) * x
    adamw_one = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = torch.optim.AdamW([adamw_one], lr=0.1, weight_decay=0.1)
    ((adamw_one @ x - 1.0) ** 2).backward()
    opt.step()
    torch.testing.assert_close(
        adamw_one.detach(), w0 * (1 - 0.1 * 0.1) - 0.1 * g / (g.abs() + 1e-8)
    )
    # Adam + L2: the decay term is divided by sqrt(v) together with the gradient (first step: lr * sign).
    adam_one = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = torch.optim.Adam([adam_one], lr=0.1, weight_decay=0.1)
    ((adam_one @ x - 1.0) ** 2).backward()
    opt.step()
    torch.testing.assert_close(
        adam_one.detach(),
        w0 - 0.1 * torch.sign(g + 0.1 * w0),
        atol=1e-6,
        rtol=0,
    )

    # Label smoothing: the gradient wrt logits is softmax(z) - smoothed target, zero exactly at that target.
    z = torch.tensor([[gap, 0.0, 0.0]], requires_grad=True)
    F.cross_entropy(z, torch.tensor([0]), label_smoothing=eps).backward()
    torch.testing.assert_close(
        z.grad[0],
        torch.softmax(z.detach()[0], dim=0) - target,
        atol=1e-6,
        rtol=0,
    )
    torch.testing.assert_close(torch.softmax(z.detach()[0], dim=0), target)
    assert abs(gap - math.log(28)) < 1e-5
    # Past the optimum, smoothing pushes the margin back down; plain CE's gradient never reaches zero.
    too_confident = torch.tensor([[gap + 3, 0.0, 0.0]], requires_grad=True)
    F.cross_entropy(
        too_confident, torch.tensor([0]), label_smoothing=eps
    ).backward()
    assert too_confident.grad[0, 0] > 0
    huge = torch.tensor([[10.0, 0.0, 0.0]], requires_grad=True)
    F.cross_entropy(huge, torch.tensor([0])).backward()
    assert huge.grad[0, 0] < 0


if __name__ == "__main__":
    _check()
