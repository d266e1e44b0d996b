"""CrossEntropyLoss is log_softmax + NLLLoss on raw logits; a softmax first changes the loss and kills the gradient."""

# --8<-- [start:ce_is_nll]
import torch
import torch.nn.functional as F

logits = torch.randn(4, 3)
target = torch.tensor([0, 2, 1, 2])
ce = F.cross_entropy(logits, target)
nll = F.nll_loss(F.log_softmax(logits, dim=1), target)
print(torch.allclose(ce, nll))
# > True
# --8<-- [end:ce_is_nll]

# --8<-- [start:double_softmax]
import torch
import torch.nn.functional as F

target = torch.tensor([1])
for name, values in {
    "confident, wrong": [[6.0, 0.0, 0.0]],
    "perfect": [[0.0, 30.0, 0.0]],
}.items():
    logits = torch.tensor(values, requires_grad=True)
    right = F.cross_entropy(logits, target)
    # softmax twice: probabilities treated as logits
    wrong = F.cross_entropy(logits.softmax(dim=1), target)
    grad_right = torch.autograd.grad(right, logits)[0].norm()
    grad_wrong = torch.autograd.grad(wrong, logits)[0].norm()
    print(f"{name}: loss {right:.3f} vs {wrong:.3f},", end=" ")
    print(f"grad norm {grad_right:.4f} vs {grad_wrong:.4f}")
# > confident, wrong: loss 6.005 vs 1.547, grad norm 1.4090 vs 0.0055
# > perfect: loss 0.000 vs 0.551, grad norm 0.0000 vs 0.0000
# --8<-- [end:double_softmax]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math

    # nn.CrossEntropyLoss (the module) is the same function, and both equal NLL of log_softmax.
    torch.testing.assert_close(ce, nll)
    x, y = torch.randn(5, 4), torch.tensor([0, 3, 1, 2, 3])
    torch.testing.assert_close(torch.nn.CrossEntropyLoss()(x, y), torch.nn.NLLLoss()(torch.log_softmax(x, dim=1), y))
    # The double-softmax floor for 3 classes: even a perfect prediction costs log(e + 2) - 1.
    perfect = torch.tensor([[0.0, 30.0, 0.0]])
    floor = math.log(math.e + 2) - 1
    at_best = F.cross_entropy(perfect.softmax(dim=1), torch.tensor([1])).item()
    assert abs(at_best - floor) < 1e-5
    assert floor > 0.55
    # The confidently wrong case: the gradient through the extra softmax is ~250x smaller.
    wrong = torch.tensor([[6.0, 0.0, 0.0]], requires_grad=True)
    g_right = torch.autograd.grad(F.cross_entropy(wrong, torch.tensor([1])), wrong)[0]
    g_wrong = torch.autograd.grad(F.cross_entropy(wrong.softmax(dim=1), torch.tensor([1])), wrong)[0]
    assert g_right.norm() > 200 * g_wrong.norm()
    # CE's gradient with respect to the logits is softmax - one_hot: bounded and well scaled.
    torch.testing.assert_close(g_right, wrong.detach().softmax(dim=1) - F.one_hot(torch.tensor([1]), 3))
    # Numerically: log(softmax(x)) underflows to -inf on large logits; log_softmax stays finite.
    big = torch.tensor([[0.0, 200.0, -200.0]])
    assert torch.isinf(torch.log(big.softmax(dim=1))).any()
    assert torch.isfinite(F.log_softmax(big, dim=1)).all()
    assert F.cross_entropy(big, torch.tensor([2])).item() == 400.0  # finite, exact


if __name__ == "__main__":
    _check()
