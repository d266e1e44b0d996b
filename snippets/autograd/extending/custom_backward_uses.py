"""When a custom backward pays: straight-through estimators, and a gradient that autograd's composite gets wrong."""

# --8<-- [start:ste]
import torch


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # quantize: its true derivative is 0 almost everywhere
        return torch.round(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass  # backward needs nothing

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output  # straight through: pretend round was the identity


x = torch.tensor([0.2, 0.7, 1.4], requires_grad=True)
torch.round(x).sum().backward()
print(x.grad)  # nothing upstream would ever learn
# > tensor([0., 0., 0.])
x.grad = None
RoundSTE.apply(x).sum().backward()
print(x.grad)
# > tensor([1., 1., 1.])
# --8<-- [end:ste]

# --8<-- [start:stable]
import torch


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(x):  # log(1 + e^x), without overflowing for large x
        return torch.where(x > 20, x, torch.log1p(torch.exp(x)))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # the exact derivative, finite everywhere
        return grad_output * torch.sigmoid(x)


x = torch.tensor([0.0, 100.0], requires_grad=True)
# the forward is fine...
naive = torch.where(x > 20, x, torch.log1p(torch.exp(x)))
naive.sum().backward()
print(x.grad)  # ...but the branch where() discarded still sends inf * 0 = nan
# > tensor([0.5000,    nan])
x.grad = None
Softplus.apply(x).sum().backward()
print(x.grad)
# > tensor([0.5000, 1.0000])
# --8<-- [end:stable]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torch.autograd import gradcheck

    # STE: forward is really rounded; backward is the identity; the detach trick gives the same pair.
    v = torch.tensor([0.2, 0.7, 1.4, -1.6], requires_grad=True)
    out = RoundSTE.apply(v)
    assert out.tolist() == [0.0, 1.0, 1.0, -2.0]
    trick = v + (torch.round(v) - v).detach()  # the common one-liner, no Function needed
    assert torch.equal(trick, out)
    (g_ste,) = torch.autograd.grad(out.sum(), v)
    (g_trick,) = torch.autograd.grad(trick.sum(), v)
    assert torch.equal(g_ste, g_trick) and torch.equal(g_ste, torch.ones(4))

    # The stable Softplus matches torch's own softplus, values and gradients, and passes gradcheck.
    big = torch.tensor([-30.0, -1.0, 0.0, 3.0, 25.0, 100.0], requires_grad=True)
    (mine,) = torch.autograd.grad(Softplus.apply(big).sum(), big)
    (theirs,) = torch.autograd.grad(torch.nn.functional.softplus(big).sum(), big)
    torch.testing.assert_close(mine, theirs)
    torch.testing.assert_close(Softplus.apply(big.detach()), torch.nn.functional.softplus(big.detach()))
    assert torch.isfinite(mine).all()
    x64 = torch.tensor([-3.0, -0.5, 0.5, 2.0, 30.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(Softplus.apply, (x64,))
    # The naive formula without where() overflows already in the forward.
    plain = torch.tensor([100.0], requires_grad=True)
    assert torch.isinf(torch.log(1 + torch.exp(plain))).all()
    # The where() trap, element by element: exp(100) overflows, and its backward multiplies inf by the 0
    # that where() sends to the discarded branch.
    trap = torch.tensor([0.0, 100.0], requires_grad=True)
    (g_trap,) = torch.autograd.grad(torch.where(trap > 20, trap, torch.log1p(torch.exp(trap))).sum(), trap)
    assert g_trap[0].item() == 0.5 and torch.isnan(g_trap[1])
    # Masking the input instead (the "double where") also fixes it without a custom Function.
    safe_in = torch.where(trap > 20, torch.zeros_like(trap), trap)
    (g_safe,) = torch.autograd.grad(torch.where(trap > 20, trap, torch.log1p(torch.exp(safe_in))).sum(), trap)
    torch.testing.assert_close(g_safe, torch.tensor([0.5, 1.0]))


if __name__ == "__main__":
    _check()
