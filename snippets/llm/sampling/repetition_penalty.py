"""Repetition penalty done right (CTRL) and wrong, plus batched frequency/presence penalties."""

# --8<-- [start:ctrl]
import torch

logits = torch.tensor([2.0, -2.0, 0.5])
seen = torch.tensor([0, 1])  # tokens already in the context
theta = 1.3

naive = logits.clone()
naive[seen] /= theta  # -2 / 1.3 = -1.54: closer to 0, MORE likely

ctrl = logits.clone()
ctrl[seen] = torch.where(ctrl[seen] > 0, ctrl[seen] / theta, ctrl[seen] * theta)

for name, x in [("before", logits), ("naive", naive), ("ctrl", ctrl)]:
    print(name, round(x.softmax(-1)[1].item(), 4))
# > before 0.0148
# > naive 0.0329
# > ctrl 0.0116
# --8<-- [end:ctrl]

# --8<-- [start:batched]
import torch


def penalize(logits, history, frequency=0.5, presence=0.3, pad=-1):
    # logits (B, V); history (B, T) token ids, padded with `pad`
    counts = torch.zeros_like(logits)
    valid = history != pad
    counts.scatter_add_(1, history.clamp(min=0), valid.to(logits.dtype))
    return logits - frequency * counts - presence * (counts > 0)


torch.manual_seed(0)
logits = torch.randn(3, 10)
history = torch.tensor([[1, 1, 4, -1], [0, 2, 2, 2], [9, -1, -1, -1]])
out = penalize(logits, history)
diff = (logits - out)[0]  # token 1 was seen twice, token 4 once
print([round(d, 2) for d in diff[[1, 4, 7]].tolist()])
# > [1.3, 0.8, 0.0]
# --8<-- [end:batched]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    before = torch.tensor([2.0, -2.0, 0.5]).softmax(-1)[1]
    assert naive.softmax(-1)[1] > before  # the naive rule makes a seen negative-logit token MORE likely
    assert ctrl.softmax(-1)[1] < before  # CTRL makes it less likely
    assert ctrl.softmax(-1)[0] < torch.tensor([2.0, -2.0, 0.5]).softmax(-1)[0]  # token 0 (positive) goes down too
    # The batched penalty equals a per-row Python loop.
    for row in range(3):
        expected = logits[row].clone()
        ids = [t for t in history[row].tolist() if t != -1]
        for t in set(ids):
            expected[t] -= 0.5 * ids.count(t) + 0.3
        torch.testing.assert_close(out[row], expected)


if __name__ == "__main__":
    _check()
