"""Checkpointing policies measured (saved bytes, FLOPs), and the reentrant + frozen-input trap under LoRA."""

# --8<-- [start:policies]
import functools

import torch
from torch import nn
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
x = torch.randn(128, 64, requires_grad=True)


def save_matmuls(ctx, op, *args, **kwargs):  # keep matmul outputs only
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


selective = functools.partial(create_selective_checkpoint_contexts,
                              save_matmuls)
runs = {
    "none": lambda: mlp(x),
    "full": lambda: checkpoint(mlp, x, use_reentrant=False),
    "selective": lambda: checkpoint(mlp, x, use_reentrant=False,
                                    context_fn=selective,
                                    respect_saved_tensors_hooks=True),
}
params = {p.data_ptr() for p in mlp.parameters()}
for name, run in runs.items():
    saved = {}

    def pack(t, saved=saved):
        if t.data_ptr() not in params:  # count activations, not weights
            saved[t.data_ptr()] = t.nbytes
        return t

    with FlopCounterMode(display=False) as flops:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = run()
        out.square().sum().backward()
    print(f"{name}: saved {sum(saved.values()):,} B, "
          f"{flops.get_total_flops():,} FLOPs")
# > none: saved 294,912 B, 25,165,824 FLOPs
# > full: saved 32,768 B, 29,360,128 FLOPs
# > selective: saved 196,608 B, 25,165,824 FLOPs
# --8<-- [end:policies]

# --8<-- [start:reentrant]
import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

embedding = nn.Embedding(100, 16).requires_grad_(False)  # frozen (LoRA)
block = nn.Linear(16, 16).requires_grad_(False)
adapter = nn.Linear(16, 16, bias=False)  # the only trainable part
ids = torch.randint(0, 100, (4, 8))


def layer(h):
    return block(h) + adapter(h)


h = embedding(ids)  # requires_grad=False: nothing upstream needs a grad
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(layer, h, use_reentrant=True)
print(out.requires_grad, str(caught[0].message)[:37])
# > False None of the inputs have requires_grad
checkpoint(layer, h, use_reentrant=False).sum().backward()
print(adapter.weight.grad is not None)
# > True
# --8<-- [end:reentrant]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Gradients are bitwise equal under every policy.
    grads = {}
    for name, run in runs.items():
        mlp.zero_grad()
        x.grad = None
        run().square().sum().backward()
        grads[name] = [x.grad.clone()] + [p.grad.clone() for p in mlp.parameters()]
    for name in ("full", "selective"):
        for a, b in zip(grads["none"], grads[name], strict=True):
            assert torch.equal(a, b), name
    # Reentrant with no input requiring grad: the output has no grad_fn, so backward raises.
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        out.sum().backward()
    assert any("Gradients will be None" in str(w.message) for w in caught)
    # Without the flag, SAC-saved tensors bypass saved_tensors_hooks: the same measurement reports less than
    # the 196,608 B that selective checkpointing really keeps.
    import warnings

    seen = {}

    def pack(t):
        if t.data_ptr() not in params:
            seen[t.data_ptr()] = t.nbytes
        return t

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            checkpoint(mlp, x, use_reentrant=False, context_fn=selective)
    assert sum(seen.values()) < 196_608, sum(seen.values())
    # Without the flag, 2.14.1 warns that SAC-saved tensors bypass saved_tensors_hooks.
    with pytest.warns(FutureWarning, match="respect_saved_tensors_hooks"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            checkpoint(mlp, x, use_reentrant=False, context_fn=selective)


if __name__ == "__main__":
    _check()
