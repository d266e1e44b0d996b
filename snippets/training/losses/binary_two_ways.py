"""A 2-logit CrossEntropyLoss head is a valid binary classifier: it equals BCEWithLogits on the logit difference."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

logits = torch.randn(8, 2, requires_grad=True)  # a 2-logit head
target = torch.randint(0, 2, (8,))
ce = F.cross_entropy(logits, target)
# softmax over two logits = sigmoid of their difference
z = logits[:, 1] - logits[:, 0]
bce = F.binary_cross_entropy_with_logits(z, target.float())
print(torch.allclose(ce, bce))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Same value, and the same gradient with respect to the two logits.
    (grad_ce,) = torch.autograd.grad(ce, logits, retain_graph=True)
    (grad_bce,) = torch.autograd.grad(bce, logits)
    torch.testing.assert_close(grad_ce, grad_bce)
    # The probability of class 1 is the sigmoid of the difference.
    torch.testing.assert_close(logits.softmax(dim=1)[:, 1], torch.sigmoid(z))
    # The 2-logit head has one redundant degree of freedom: shifting both logits changes nothing.
    shifted = F.cross_entropy(logits.detach() + 3.0, target)
    torch.testing.assert_close(shifted, ce.detach())
    # The real binary mistakes: BCELoss on logits raises; CE is wrong for multi-label (it forces one class).
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([2.0]), torch.tensor([1.0]))
    # sigmoid + BCELoss is numerically weaker: the probability saturates and BCELoss clamps log() at -100.
    far = torch.tensor([200.0])
    assert F.binary_cross_entropy(torch.sigmoid(far), torch.zeros(1)).item() == 100.0
    assert F.binary_cross_entropy_with_logits(far, torch.zeros(1)).item() == 200.0
    # `weight` in BCEWithLogitsLoss rescales whole elements (both terms); pos_weight only the positive term.
    zs, ts = torch.randn(4), torch.tensor([1.0, 0.0, 1.0, 0.0])
    plain = F.binary_cross_entropy_with_logits(zs, ts, reduction="none")
    torch.testing.assert_close(
        F.binary_cross_entropy_with_logits(zs, ts, weight=torch.full((4,), 2.0), reduction="none"), 2 * plain
    )
    two_labels_on = torch.tensor([[1.0, 1.0, 0.0]])
    probs = F.softmax(torch.tensor([[9.0, 9.0, -9.0]]), dim=1)
    assert probs.max() < 0.51  # softmax can never give both "on" classes a high probability
    assert torch.sigmoid(torch.tensor([9.0, 9.0, -9.0])).round().tolist() == two_labels_on[0].tolist()


if __name__ == "__main__":
    _check()
