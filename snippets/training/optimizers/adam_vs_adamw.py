"""Adam(weight_decay) puts L2 in the gradient, scaled by 1/sqrt(v); AdamW decays every weight alike."""

# --8<-- [start:defaults]
import torch
from torch import nn

params = [nn.Parameter(torch.zeros(3))]
for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    defaults = cls(params).defaults  # no lr passed: each has a default
    print(cls.__name__, defaults["lr"], defaults["weight_decay"])
# > SGD 0.001 0
# > Adam 0.001 0
# > AdamW 0.001 0.01
# --8<-- [end:defaults]

# --8<-- [start:decoupled]
import torch
from torch import nn


def one_step(optimizer_cls: type[torch.optim.Optimizer]) -> torch.Tensor:
    p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    optimizer = optimizer_cls([p], lr=0.1, weight_decay=0.1)
    p.grad = torch.tensor([0.5, 0.5, 0.5])
    optimizer.step()
    return p.detach()


# wd * p joins the gradient, then is divided by sqrt(v) like the rest
print(one_step(torch.optim.Adam))
# > tensor([ 0.9000, -2.1000,  2.9000])
# p also shrinks by lr * wd * p, outside the adaptive step
print(one_step(torch.optim.AdamW))
# > tensor([ 0.8900, -2.0800,  2.8700])
# --8<-- [end:decoupled]

# --8<-- [start:nonuniform]
import torch
from torch import nn


def train(optimizer_cls: type[torch.optim.Optimizer]) -> torch.Tensor:
    p = nn.Parameter(torch.ones(2))  # two weights, both 1.0
    optimizer = optimizer_cls([p], lr=0.01, weight_decay=0.1)
    scale = torch.tensor([1.0, 1e-3])  # gradient sizes: large and tiny
    for t in range(300):
        p.grad = scale * (-1) ** t  # zero-mean noise: no pull either way
        optimizer.step()
    return p.detach()


print(train(torch.optim.Adam))  # the tiny-gradient weight is decayed to ~0
# > tensor([7.2783e-01, 1.9228e-04])
print(train(torch.optim.AdamW))  # both shrink by the same factor
# > tensor([0.7277, 0.7277])
# --8<-- [end:nonuniform]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    def run(
        cls: type[torch.optim.Optimizer],
        steps: int,
        grads: list[float],
        **kwargs: float,
    ) -> torch.Tensor:
        p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64))
        opt = cls([p], **kwargs)
        for _ in range(steps):
            p.grad = torch.tensor(grads, dtype=torch.float64)
            opt.step()
        return p.detach()

    g = [0.5, 0.5, 0.5]
    p0 = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    # Step 1 of Adam is lr * sign(grad + wd * p): here the L2 term flips no sign, so step 1 alone
    # looks like no decay. That is a property of step 1, not a cancellation (see below).
    adam_l2_step = run(torch.optim.Adam, 1, g, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(
        adam_l2_step, run(torch.optim.Adam, 1, g, lr=0.1)
    )
    # AdamW step 1: p <- p * (1 - lr * wd) - lr * m_hat / (sqrt(v_hat) + eps), m_hat / sqrt(v_hat) = 1.
    expected = p0 * (1 - 0.1 * 0.1) - 0.1 * 0.5 / (0.5 + 1e-8)
    torch.testing.assert_close(
        run(torch.optim.AdamW, 1, g, lr=0.1, weight_decay=0.1), expected
    )
    # Over many steps Adam's L2 does act (it is not cancelled): it differs from no decay and from AdamW.
    adam20 = run(torch.optim.Adam, 20, g, lr=0.1, weight_decay=0.1)
    assert not torch.allclose(adam20, run(torch.optim.Adam, 20, g, lr=0.1))
    assert not torch.allclose(
        adam20, run(torch.optim.AdamW, 20, g, lr=0.1, weight_decay=0.1)
    )
    # With zero gradients AdamW decays every weight by the same factor; Adam's L2 gradient is then the whole
    # gradient, so Adam moves every weight by about lr (sign-like), whatever its size: strong decay.
    zero = [0.0, 0.0, 0.0]
    torch.testing.assert_close(
        run(torch.optim.AdamW, 3, zero, lr=0.1, weight_decay=0.1),
        p0 * (1 - 0.01) ** 3,
    )
    adam_l2 = run(torch.optim.Adam, 1, zero, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(
        adam_l2, p0 - 0.1 * torch.sign(p0), atol=1e-6, rtol=0
    )

    # The non-uniform effect (Loshchilov & Hutter 2019). Measured on 2.14: Adam(L2) [0.7278, 0.00019],
    # AdamW [0.7277, 0.7277], no decay at all [0.9824, 0.9824].
    adam, adamw = train(torch.optim.Adam), train(torch.optim.AdamW)
    torch.testing.assert_close(
        adam, torch.tensor([0.72783, 1.9228e-4]), rtol=1e-3, atol=1e-6
    )
    torch.testing.assert_close(
        adamw, torch.tensor([0.72772, 0.72772]), rtol=1e-3, atol=0
    )
    # The old claim "Adam's normalisation cancels the L2 term" would leave Adam at the no-decay result.
    p_free = nn.Parameter(torch.ones(2))
    opt_free = torch.optim.Adam([p_free], lr=0.01)
    for t in range(300):
        p_free.grad = torch.tensor([1.0, 1e-3]) * (-1) ** t
        opt_free.step()
    torch.testing.assert_close(
        p_free.detach(), torch.tensor([0.98240, 0.98240]), rtol=1e-3, atol=0
    )
    assert (
        adam - p_free.detach()
    ).abs().min() > 0.2  # both weights were decayed: nothing cancelled
    # Adam: strong decay where the gradient is small, weak where it is large. AdamW: the same factor for both.
    assert adam[1] < 1e-3 < 0.7 < adam[0]
    torch.testing.assert_close(adamw[0], adamw[1], rtol=1e-4, atol=0)
    # AdamW's factor is the no-decay result times (1 - lr * wd) ** 300, to 1e-3.
    torch.testing.assert_close(
        adamw, p_free.detach() * (1 - 0.01 * 0.1) ** 300, rtol=1e-3, atol=0
    )

    # Plain SGD: L2 in the gradient and decoupled decay are the same update, p - lr * (g + wd * p)
    # = p * (1 - lr * wd) - lr * g, and torch's SGD(weight_decay) is that update.
    sgd = run(torch.optim.SGD, 1, g, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(
        sgd, p0 - 0.1 * (torch.tensor(g, dtype=torch.float64) + 0.1 * p0)
    )

    # With momentum they differ: torch's SGD(weight_decay) adds wd * p to the gradient BEFORE the momentum
    # buffer (L2, amplified by momentum), while decoupled decay (SGDW) shrinks p outside the buffer.
    def sgd_l2_by_hand(steps: int) -> torch.Tensor:
        p = nn.Parameter(p0.clone())
        opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        for _ in range(steps):
            p.grad = torch.tensor(g, dtype=torch.float64) + 0.1 * p.detach()
            opt.step()
        return p.detach()

    def sgdw(steps: int, momentum: float) -> torch.Tensor:
        p = nn.Parameter(p0.clone())
        opt = torch.optim.SGD([p], lr=0.1, momentum=momentum)
        for _ in range(steps):
            with torch.no_grad():
                p.mul_(1 - 0.1 * 0.1)
            p.grad = torch.tensor(g, dtype=torch.float64)
            opt.step()
        return p.detach()

    sgd_mom = run(torch.optim.SGD, 5, g, lr=0.1, momentum=0.9, weight_decay=0.1)
    torch.testing.assert_close(
        sgd_mom, sgd_l2_by_hand(5)
    )  # torch's weight_decay IS L2 for SGD
    assert not torch.allclose(
        sgd_mom, sgdw(5, momentum=0.9), atol=1e-3
    )  # momentum: L2 != decoupled
    torch.testing.assert_close(
        run(torch.optim.SGD, 5, g, lr=0.1, weight_decay=0.1), sgdw(5, 0.0)
    )

    # Momentum: buf = mu * buf + g; p -= lr * buf.
    mom = run(torch.optim.SGD, 2, g, lr=0.1, momentum=0.9)
    torch.testing.assert_close(mom, p0 - 0.1 * 0.5 - 0.1 * (0.9 * 0.5 + 0.5))
    # On 2.14, AdamW is Adam with decoupled_weight_decay=True.
    assert issubclass(torch.optim.AdamW, torch.optim.Adam)
    torch.testing.assert_close(
        run(
            torch.optim.Adam,
            5,
            g,
            lr=0.1,
            weight_decay=0.1,
            decoupled_weight_decay=True,
        ),
        run(torch.optim.AdamW, 5, g, lr=0.1, weight_decay=0.1),
    )
    # The printed steps.
    torch.testing.assert_close(
        one_step(torch.optim.Adam), torch.tensor([0.9, -2.1, 2.9])
    )
    torch.testing.assert_close(
        one_step(torch.optim.AdamW), torch.tensor([0.89, -2.08, 2.87])
    )
    # Newer optimizers ship too (Muon, for 2-D weights).
    assert hasattr(torch.optim, "Muon") and defaults["weight_decay"] == 0.01


if __name__ == "__main__":
    _check()
