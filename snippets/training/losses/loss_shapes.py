"""Output shape, target shape/dtype and loss per task, each checked with a real loss call."""

# --8<-- [start:tasks]
import torch
from torch import nn

# batch, classes, height, width, sequence length, vocabulary
N, C, H, W, T, V = 4, 5, 8, 8, 6, 11
cases = {  # task: (loss, model output, target)
    "regression": (nn.MSELoss(), torch.randn(N, 1), torch.randn(N, 1)),
    "binary": (
        nn.BCEWithLogitsLoss(),
        torch.randn(N),
        torch.randint(0, 2, (N,)).float(),
    ),
    "multiclass": (
        nn.CrossEntropyLoss(),
        torch.randn(N, C),
        torch.randint(0, C, (N,)),
    ),
    "multilabel": (
        nn.BCEWithLogitsLoss(),
        torch.randn(N, C),
        torch.randint(0, 2, (N, C)).float(),
    ),
    "segmentation": (
        nn.CrossEntropyLoss(),
        torch.randn(N, C, H, W),
        torch.randint(0, C, (N, H, W)),
    ),
    "next-token": (
        nn.CrossEntropyLoss(),
        torch.randn(N * T, V),
        torch.randint(0, V, (N * T,)),
    ),
}
for task, (loss_fn, output, target) in cases.items():
    loss = loss_fn(output, target)  # every one of these is a valid call
    shapes = f"{tuple(output.shape)!s:<13} {tuple(target.shape)!s:<10}"
    print(f"{task:<12} {type(loss_fn).__name__:<17} {shapes} {target.dtype}")
# > regression   MSELoss           (4, 1)        (4, 1)     torch.float32
# > binary       BCEWithLogitsLoss (4,)          (4,)       torch.float32
# > multiclass   CrossEntropyLoss  (4, 5)        (4,)       torch.int64
# > multilabel   BCEWithLogitsLoss (4, 5)        (4, 5)     torch.float32
# > segmentation CrossEntropyLoss  (4, 5, 8, 8)  (4, 8, 8)  torch.int64
# > next-token   CrossEntropyLoss  (24, 11)      (24,)      torch.int64
# --8<-- [end:tasks]

# --8<-- [start:next_token]
import torch
import torch.nn.functional as F

B, T, V = 2, 6, 11
tokens = torch.randint(0, V, (B, T))
logits = torch.randn(B, T, V)  # what a language model returns for `tokens`
# position t predicts token t+1: drop the last prediction and the first target
flat = F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1))
# (B, V, T-1) vs (B, T-1)
class_dim_second = F.cross_entropy(
    logits[:, :-1].transpose(1, 2), tokens[:, 1:]
)
print(torch.allclose(flat, class_dim_second))
# > True
# --8<-- [end:next_token]

# --8<-- [start:mistakes]
import textwrap

import torch
import torch.nn.functional as F

attempts = {
    "float class ids": lambda: F.cross_entropy(
        torch.randn(4, 3), torch.tensor([0.0, 2.0, 1.0, 1.0])
    ),
    "(B, T, V) into CE": lambda: F.cross_entropy(
        torch.randn(2, 6, 11), torch.randint(0, 11, (2, 6))
    ),
    "(N, 1) vs (N,) in BCE": lambda: F.binary_cross_entropy_with_logits(
        torch.randn(4, 1), torch.ones(4)
    ),
    "BCELoss on logits": lambda: F.binary_cross_entropy(
        torch.tensor([2.0, -1.0]), torch.tensor([1.0, 0.0])
    ),
}
for name, attempt in attempts.items():
    try:
        attempt()
    except (RuntimeError, ValueError) as err:
        print(f"{name}:")
        print(textwrap.indent(textwrap.fill(str(err), width=70), "  "))
# > float class ids:
# >   expected target dtype to be Long or Byte, but got Float
# > (B, T, V) into CE:
# >   Expected target size [2, 11], got [2, 6]
# > (N, 1) vs (N,) in BCE:
# >   Target size (torch.Size([4])) must be the same as input size
# >   (torch.Size([4, 1]))
# > BCELoss on logits:
# >   all elements of input should be between 0 and 1
# --8<-- [end:mistakes]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Every task's loss is a scalar with the default reduction="mean", and reduction="none" keeps the target's shape.
    for loss_fn, output, target in cases.values():
        assert loss_fn(output, target).shape == ()
        per_element = type(loss_fn)(reduction="none")(output, target)
        assert per_element.shape == target.shape
    # Segmentation CE is per-pixel CE: the same as flattening the pixels into the batch.
    _, seg_out, seg_target = cases["segmentation"]
    flat = F.cross_entropy(seg_out.permute(0, 2, 3, 1).reshape(-1, C), seg_target.reshape(-1))
    torch.testing.assert_close(F.cross_entropy(seg_out, seg_target), flat)
    # CE also accepts class probabilities (float, same shape as the input): one-hot equals index targets.
    logits, labels = cases["multiclass"][1], cases["multiclass"][2]
    torch.testing.assert_close(F.cross_entropy(logits, F.one_hot(labels, C).float()), F.cross_entropy(logits, labels))
    # int32 class ids are refused too; BCE targets must be float.
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1], dtype=torch.int32))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(torch.randn(2), torch.tensor([0, 1]))
    # A class id out of range is an IndexError on CPU.
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    # The regression trap: (N, 1) vs (N,) only warns, and broadcasts to (N, N).
    pred, target = torch.randn(4, 1), torch.randn(4)
    with pytest.warns(UserWarning, match="different to the input size"):
        broadcast = F.mse_loss(pred, target)
    torch.testing.assert_close(broadcast, ((pred - target) ** 2).mean())  # the mean over 16 pairs
    assert not torch.allclose(broadcast, F.mse_loss(pred.squeeze(1), target))
    # Each shown mistake raised (the loop printed four messages), and the shift kept T-1 positions.
    assert len(attempts) == 4 and class_dim_second.shape == ()


if __name__ == "__main__":
    _check()
