"""ignore_index, label_smoothing, weight and pos_weight: what each one computes, checked against the formula."""

# --8<-- [start:ignore_index]
import torch
import torch.nn.functional as F

logits = torch.randn(6, 4)
# -100 marks padding: the default ignore_index
target = torch.tensor([1, 3, -100, 0, -100, 2])
loss = F.cross_entropy(logits, target)
kept = target != -100
# the mean over the 4 real rows
print(torch.allclose(loss, F.cross_entropy(logits[kept], target[kept])))
# > True
# --8<-- [end:ignore_index]

# --8<-- [start:label_smoothing]
import torch
import torch.nn.functional as F

logits, target, eps = torch.randn(5, 4), torch.tensor([0, 1, 2, 3, 1]), 0.1
smoothed = F.cross_entropy(logits, target, label_smoothing=eps)
log_p = F.log_softmax(logits, dim=1)
# target mixed with uniform
by_hand = (1 - eps) * F.nll_loss(log_p, target) + eps * (
    -log_p.mean(dim=1)
).mean()
print(torch.allclose(smoothed, by_hand))
# > True
# --8<-- [end:label_smoothing]

# --8<-- [start:class_weights]
import torch
import torch.nn.functional as F

logits, target = torch.randn(6, 3), torch.tensor([0, 0, 0, 1, 1, 2])
weight = torch.tensor([1.0, 2.0, 6.0])  # rarer classes count more
weighted = F.cross_entropy(logits, target, weight=weight)
per_sample = F.cross_entropy(logits, target, reduction="none")
# not / 6
print(
    torch.allclose(
        weighted, (weight[target] * per_sample).sum() / weight[target].sum()
    )
)
# > True

scores = torch.randn(8, 2)  # multilabel logits
labels = torch.tensor([[1.0, 0.0]] * 2 + [[0.0, 0.0]] * 5 + [[0.0, 1.0]])
# negatives / positives, per class
pos_weight = (labels == 0).sum(dim=0) / (labels == 1).sum(dim=0)
bce = F.binary_cross_entropy_with_logits(scores, labels, pos_weight=pos_weight)
by_hand = -(
    pos_weight * labels * F.logsigmoid(scores)
    + (1 - labels) * F.logsigmoid(-scores)
).mean()
print(pos_weight, torch.allclose(bce, by_hand))
# > tensor([3., 7.]) True
# --8<-- [end:class_weights]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # ignore_index: the default is -100; ignored rows get no gradient; all rows ignored gives NaN (0 / 0).
    assert torch.nn.CrossEntropyLoss().ignore_index == -100
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.tensor([0, -100, 2, -100])
    F.cross_entropy(x, y).backward()
    assert x.grad[1].abs().sum() == 0 and x.grad[3].abs().sum() == 0 and x.grad[0].abs().sum() > 0
    assert torch.isnan(F.cross_entropy(torch.randn(2, 3), torch.full((2,), -100)))
    # With mean reduction the denominator is the number of kept rows, not the batch size.
    total = F.cross_entropy(x.detach(), y, reduction="sum")
    torch.testing.assert_close(F.cross_entropy(x.detach(), y), total / 2)
    # A custom ignore_index works the same way (e.g. a pad token id).
    torch.testing.assert_close(F.cross_entropy(x.detach(), torch.tensor([0, 1, 2, 1]), ignore_index=1), total / 2)
    # label_smoothing: 0 is plain CE; the smoothed loss never reaches 0, even for a perfect prediction.
    torch.testing.assert_close(F.cross_entropy(logits, target, label_smoothing=0.0), F.cross_entropy(logits, target))
    perfect = torch.tensor([[50.0, 0.0, 0.0]])
    assert F.cross_entropy(perfect, torch.tensor([0]), label_smoothing=0.1) > 1.0
    # weight: the weighted mean divides by the sum of the targets' weights; uniform weights change nothing.
    assert not torch.allclose(weighted, (weight[target] * per_sample).mean())
    torch.testing.assert_close(F.cross_entropy(logits, target, weight=torch.full((3,), 4.0)), per_sample.mean())
    # pos_weight scales the positive term only; pos_weight = 1 is plain BCE.
    torch.testing.assert_close(
        F.binary_cross_entropy_with_logits(scores, labels, pos_weight=torch.ones(2)),
        F.binary_cross_entropy_with_logits(scores, labels),
    )
    assert pos_weight.tolist() == [3.0, 7.0] and smoothed.shape == ()


if __name__ == "__main__":
    _check()
