"""Activation checkpointing with use_reentrant=False: the same gradients from fewer saved tensors."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

blocks = nn.ModuleList(
    nn.Sequential(nn.Linear(64, 64), nn.GELU()) for _ in range(4)
)
x = torch.randn(32, 64, requires_grad=True)


def grads_and_saved(use_checkpoint):
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: saved.append(t) or t, lambda t: t
    ):
        h = x
        for block in blocks:
            h = (
                checkpoint(block, h, use_reentrant=False)
                if use_checkpoint
                else block(h)
            )
        loss = h.square().mean()
    return torch.autograd.grad(loss, [x, *blocks.parameters()]), len(saved)


plain, n_plain = grads_and_saved(False)
# each block's inside is recomputed during backward
ckpt, n_ckpt = grads_and_saved(True)
print(
    n_plain,
    "->",
    n_ckpt,
    "saved tensors; identical grads:",
    all(map(torch.equal, plain, ckpt)),
)
# > 13 -> 5 saved tensors; identical grads: True
# --8<-- [end:demo]

# --8<-- [start:reentrant_default]
import warnings

import torch
import torch.utils.checkpoint

layer = torch.nn.Linear(4, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    # no use_reentrant
    out = torch.utils.checkpoint.checkpoint(
        layer, torch.randn(2, 4, requires_grad=True)
    )
message = str(caught[0].message)
# says "will raise", yet it ran
when, what = message.split(". ")[1].split(", ", 1)
print(caught[0].category.__name__, "|", when)
# > UserWarning | Starting in PyTorch 2.9
print(what)
# > calling checkpoint without use_reentrant will raise an exception
# --8<-- [end:reentrant_default]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Plain: 2 saved per Linear (input, weight) + 1 per GELU, x 4 blocks, + square's input = 13.
    # Checkpointed: only each block's input is kept (4), + square's input = 5.
    assert (n_plain, n_ckpt) == (13, 5)
    for a, b in zip(plain, ckpt, strict=True):
        assert torch.equal(a, b)
    # Without the argument it still ran, with the reentrant default: a warning, not an error (2.14).
    assert out.shape == (2, 4) and out.grad_fn is not None
    with pytest.warns(
        UserWarning, match="use_reentrant parameter should be passed explicitly"
    ):
        torch.utils.checkpoint.checkpoint(
            layer, torch.randn(2, 4, requires_grad=True)
        )
    # Selective activation checkpointing has its API in torch.utils.checkpoint.
    from torch.utils.checkpoint import (
        CheckpointPolicy,
        create_selective_checkpoint_contexts,
    )

    assert CheckpointPolicy.MUST_SAVE and callable(
        create_selective_checkpoint_contexts
    )


if __name__ == "__main__":
    _check()
