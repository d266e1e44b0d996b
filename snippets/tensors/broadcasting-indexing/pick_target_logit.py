"""Pick each row's target-class logit without a loop: paired advanced indexing or gather."""

# --8<-- [start:demo]
import torch

logits = torch.tensor([[2.0, 0.5, -1.0],
                       [0.1, 0.2, 3.0],
                       [1.0, 4.0, 0.0],
                       [0.3, -0.2, 0.9]])
target = torch.tensor([0, 2, 1, 2])  # one class id per row
# pairs (0, 0), (1, 2), (2, 1), (3, 2)
picked = logits[torch.arange(len(target)), target]
print(picked)
# > tensor([2.0000, 3.0000, 4.0000, 0.9000])
# index has logits' ndim: (4, 1)
same = logits.gather(1, target.unsqueeze(1)).squeeze(1)
print(torch.equal(picked, same))
# > True
print(logits[:, target].shape)  # the slip: every row at every target
# > torch.Size([4, 4])
# --8<-- [end:demo]

# --8<-- [start:nll]
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0],
                       [0.1, 0.2, 3.0],
                       [1.0, 4.0, 0.0],
                       [0.3, -0.2, 0.9]])
target = torch.tensor([0, 2, 1, 2])
log_probs = logits.log_softmax(dim=1)  # stable: never log(softmax(x))
loss = -log_probs.gather(1, target.unsqueeze(1)).mean()
print(torch.allclose(loss, F.cross_entropy(logits, target)))
# > True
# --8<-- [end:nll]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Both vectorized forms equal the Python loop they replace.
    looped = torch.stack([logits[i, target[i]] for i in range(len(target))])
    assert torch.equal(picked, looped) and torch.equal(same, looped)
    assert torch.equal(torch.take_along_dim(logits, target[:, None], dim=1).squeeze(1), looped)
    # The slip is silent: (N, N), with the right answers only on the diagonal.
    assert torch.equal(logits[:, target].diagonal(), looped)

    # gather wants an index with as many dims as the input; each index must be in range.
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"):
        logits.gather(1, target)
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 3"):
        logits.gather(1, torch.full((4, 1), 5))
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 3"):
        logits[torch.arange(4), torch.tensor([5, 0, 0, 0])]
    # On torch 2.14 an int32 index works too.
    assert torch.equal(logits.gather(1, target.int().unsqueeze(1)).squeeze(1), looped)

    # The same call picks per-token targets in a (B, T, V) batch of language-model logits.
    lm_logits = torch.randn(2, 5, 7)
    tokens = torch.randint(0, 7, (2, 5))
    per_token = lm_logits.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    assert per_token.shape == (2, 5)
    b, t = torch.meshgrid(torch.arange(2), torch.arange(5), indexing="ij")
    assert torch.equal(per_token, lm_logits[b, t, tokens])

    # The gradient of a gather is a scatter: only the picked entries receive gradient.
    leaf = logits.clone().requires_grad_()
    leaf.gather(1, target.unsqueeze(1)).sum().backward()
    assert torch.equal(leaf.grad, torch.nn.functional.one_hot(target, num_classes=3).float())

    # Cross-entropy is exactly "minus the picked log-probability, averaged".
    torch.testing.assert_close(loss, F.cross_entropy(logits, target))
    torch.testing.assert_close(-log_probs[torch.arange(4), target].mean(), loss)


if __name__ == "__main__":
    _check()
