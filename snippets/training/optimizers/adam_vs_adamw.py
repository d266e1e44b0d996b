"""SGD, momentum, Adam, AdamW: Adam(weight_decay) puts L2 in the gradient, AdamW decays the weights directly."""

# --8<-- [start:defaults]
import torch
from torch import nn

params = [nn.Parameter(torch.zeros(3))]
for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    defaults = cls(params).defaults  # no lr passed: every one of them has a default
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


print(one_step(torch.optim.Adam))  # wd * p joins the gradient, then gets divided by sqrt(v)
# > tensor([ 0.9000, -2.1000,  2.9000])
print(one_step(torch.optim.AdamW))  # p also shrinks by lr * wd * p, outside the adaptive step
# > tensor([ 0.8900, -2.0800,  2.8700])
# --8<-- [end:decoupled]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    def run(cls: type[torch.optim.Optimizer], steps: int, grads: list[float], **kwargs: float) -> torch.Tensor:
        p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64))
        opt = cls([p], **kwargs)
        for _ in range(steps):
            p.grad = torch.tensor(grads, dtype=torch.float64)
            opt.step()
        return p.detach()

    g = [0.5, 0.5, 0.5]
    p0 = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    # Step 1 of Adam is lr * sign(grad): the L2 term vanished into the normalisation -- same as no decay at all.
    adam_l2_step = run(torch.optim.Adam, 1, g, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(adam_l2_step, run(torch.optim.Adam, 1, g, lr=0.1))
    # AdamW step 1: p <- p * (1 - lr * wd) - lr * m_hat / (sqrt(v_hat) + eps), where m_hat / sqrt(v_hat) = 1.
    expected = p0 * (1 - 0.1 * 0.1) - 0.1 * 0.5 / (0.5 + 1e-8)
    torch.testing.assert_close(run(torch.optim.AdamW, 1, g, lr=0.1, weight_decay=0.1), expected)
    # Over many steps the two still differ.
    assert not torch.allclose(
        run(torch.optim.Adam, 20, g, lr=0.1, weight_decay=0.1), run(torch.optim.AdamW, 20, g, lr=0.1, weight_decay=0.1)
    )
    # With zero gradients AdamW decays every weight by the same factor; Adam's L2 moves all by about lr (sign-like).
    zero = [0.0, 0.0, 0.0]
    torch.testing.assert_close(run(torch.optim.AdamW, 3, zero, lr=0.1, weight_decay=0.1), p0 * (1 - 0.01) ** 3)
    adam_l2 = run(torch.optim.Adam, 1, zero, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(adam_l2, p0 - 0.1 * torch.sign(p0), atol=1e-6, rtol=0)
    # For plain SGD, L2-in-the-gradient and weight decay are the same update: p - lr * (g + wd * p).
    sgd = run(torch.optim.SGD, 1, g, lr=0.1, weight_decay=0.1)
    torch.testing.assert_close(sgd, p0 - 0.1 * (torch.tensor(g, dtype=torch.float64) + 0.1 * p0))
    # Momentum: buf = mu * buf + g; p -= lr * buf.
    mom = run(torch.optim.SGD, 2, g, lr=0.1, momentum=0.9)
    torch.testing.assert_close(mom, p0 - 0.1 * 0.5 - 0.1 * (0.9 * 0.5 + 0.5))
    # On 2.14, AdamW is Adam with decoupled_weight_decay=True.
    assert issubclass(torch.optim.AdamW, torch.optim.Adam)
    torch.testing.assert_close(
        run(torch.optim.Adam, 5, g, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
        run(torch.optim.AdamW, 5, g, lr=0.1, weight_decay=0.1),
    )
    # The printed steps.
    torch.testing.assert_close(one_step(torch.optim.Adam), torch.tensor([0.9, -2.1, 2.9]))
    torch.testing.assert_close(one_step(torch.optim.AdamW), torch.tensor([0.89, -2.08, 2.87]))
    # Newer optimizers ship too (Muon, for 2-D weights).
    assert hasattr(torch.optim, "Muon") and defaults["weight_decay"] == 0.01


if __name__ == "__main__":
    _check()
