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

# --8<-- [start:uneven_decay]
import torch


def train(optimizer_class) -> torch.Tensor:
    w = torch.ones(2, requires_grad=True)
    optimizer = optimizer_class([w], lr=0.01, weight_decay=0.1)
    scale = torch.tensor([1.0, 1e-3])  # weight 0: large gradients, 1: tiny
    for _ in range(300):
        optimizer.zero_grad()
        w.grad = scale * torch.randn(2)  # noisy gradients with mean zero
        optimizer.step()
    return w.detach()


adam, adamw = train(torch.optim.Adam), train(torch.optim.AdamW)
# Adam + L2: λ·w / √v̂ is large where the gradients are tiny
print("Adam  decays the tiny-gradient weight to ~0:", bool(adam[1] < 0.05))
# > Adam  decays the tiny-gradient weight to ~0: True
# AdamW: the same lr·λ shrink for every weight, whatever its gradient
print("AdamW decays the tiny-gradient weight to ~0:", bool(adamw[1] < 0.05))
# > AdamW decays the tiny-gradient weight to ~0: False
# --8<-- [end:uneven_decay]

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

    # SGD's weight_decay is L2 even with momentum (the term enters the gradient,
    # then the momentum buffer). L2 equals *decoupled* decay (w *= 1 - lr·λ
    # before the step) only without momentum: "plain SGD" means no momentum.
    def sgd(momentum, weight_decay=0.0, l2=0.0, decoupled=0.0):
        w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = torch.optim.SGD(
            [w], lr=0.1, momentum=momentum, weight_decay=weight_decay
        )
        for _ in range(5):
            opt.zero_grad()
            ((w @ x - 1.0) ** 2 + l2 / 2 * w.pow(2).sum()).backward()
            with torch.no_grad():
                w.mul_(1 - 0.1 * decoupled)
            opt.step()
        return w.detach()

    torch.testing.assert_close(sgd(0.9, weight_decay=0.1), sgd(0.9, l2=0.1))
    torch.testing.assert_close(sgd(0.0, weight_decay=0.1), sgd(0.0, decoupled=0.1))
    assert not torch.allclose(
        sgd(0.9, weight_decay=0.1), sgd(0.9, decoupled=0.1), atol=1e-2
    )

    # Adam does not cancel L2: it scales it by 1/√v̂, per weight. The tiny-gradient
    # weight is driven to ~0 (far from where Adam without decay leaves it), the
    # large-gradient weight barely feels the decay. AdamW shrinks both alike.
    assert adam[1].abs() < 0.05 and adam[0] > 0.1
    assert adamw[1] > 0.1 and adamw[0] > 0.1
    torch.manual_seed(0)
    no_decay = torch.ones(2, requires_grad=True)
    opt = torch.optim.Adam([no_decay], lr=0.01)
    for _ in range(300):
        opt.zero_grad()
        no_decay.grad = torch.tensor([1.0, 1e-3]) * torch.randn(2)
        opt.step()
    assert no_decay[1] > 0.3  # so the decay, not the noise, took weight 1 to 0
    # With zero gradients AdamW's shrink is exactly (1 - lr·λ) per step for every
    # weight, while Adam + L2 moves every weight by about lr per step.
    zero_w = torch.tensor([1.0, 3.0], requires_grad=True)
    opt = torch.optim.AdamW([zero_w], lr=0.01, weight_decay=0.1)
    for _ in range(100):
        zero_w.grad = torch.zeros(2)
        opt.step()
    torch.testing.assert_close(
        zero_w.detach(), torch.tensor([1.0, 3.0]) * (1 - 0.01 * 0.1) ** 100
    )
    zero_l2 = torch.tensor([1.0, 3.0], requires_grad=True)
    opt = torch.optim.Adam([zero_l2], lr=0.01, weight_decay=0.1)
    zero_l2.grad = torch.zeros(2)
    opt.step()
    torch.testing.assert_close(
        zero_l2.detach(), torch.tensor([0.99, 2.99]), atol=1e-4, rtol=0
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
