# %% [markdown]
# # Lab · Get this model ready to ship
#
# A small classifier is trained, and the serving team wants it by Friday. Three questions stand between
# the notebook and production: how much memory will the next, much larger training run need; will the
# exported program accept the batch sizes the server sends; and will export even see the NumPy
# post-processing step that the old service used. Each is a classic systems-round question, and each has a
# tempting answer that is wrong.
#
# You practise counting the bytes of training state and checking the count against what PyTorch really
# allocates, exporting with a dynamic batch dimension, and wrapping opaque code as a custom op with a fake
# implementation that `torch.library.opcheck` verifies. It takes about 30 minutes, and draws on Module 8 ·
# Memory, Q106 (what consumes memory in training), Export and deployment, Q101 (`torch.export`, static and
# dynamic shapes), and Custom ops and extensions, Q99 (`custom_op`, `register_fake`, `opcheck`).
#
# Runs on the CPU in seconds. Colab or any install with torch >= 2.6 has everything; nothing to install.

# %%
import numpy as np
import torch
from torch import nn
from torch.export import Dim

torch.manual_seed(0)


class Classifier(nn.Module):
    """The model to ship: 16 features in, 4 class scores out."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, 4))

    def forward(self, x):
        return self.body(x)


model = Classifier().eval()  # served in eval mode: Dropout off, outputs deterministic
features = torch.randn(8, 16)  # an example batch of 8 requests


def nbytes(tensors):
    """The total size of some tensors, in bytes."""
    return sum(t.numel() * t.element_size() for t in tensors)


def adam_state_bytes(optimizer):
    """The bytes of Adam's moment tensors (its scalar `step` counters are left out)."""
    return nbytes(state[key] for state in optimizer.state.values() for key in ("exp_avg", "exp_avg_sq"))


# %% [markdown]
# ## Exercise 1 · Budget the training memory
#
# The next run trains a 7B-parameter version of the model with Adam, and someone has to say how many GPUs
# it needs. `training_bytes(n_params, mixed_precision)` should return the bytes of the *model states*
# (weights, gradients and optimizer state; activations come on top) for fp32 training and for bf16 mixed
# precision. The shipped version gets fp32 right and believes that mixed precision halves everything.
#
# The check trains the classifier for one Adam step twice: in fp32, and in the layout that mixed-precision
# training uses (bf16 weights and gradients for forward and backward, an fp32 master copy of the weights
# that Adam updates). It adds up the bytes of every tensor that lives from one step to the next and
# compares them with your function. Hint: list the tensors of each layout and the dtype of each.


# %% tags=["exercise"]
def training_bytes(n_params, mixed_precision):
    """Bytes of weights, gradients and Adam state for training n_params parameters (no activations)."""
    fp32 = n_params * (4 + 4 + 8)  # weights, gradients, Adam's exp_avg and exp_avg_sq: all float32
    if mixed_precision:
        return fp32 // 2  # TODO: bf16 is half the size of fp32, but is every one of these tensors bf16?
    return fp32


# %% tags=["check"]
n = sum(p.numel() for p in model.parameters())

# fp32: the weights, their gradients and Adam's two moments, all float32.
net = Classifier()
optimizer = torch.optim.Adam(net.parameters())
net(features).square().mean().backward()
optimizer.step()
fp32_bytes = nbytes(net.parameters()) + nbytes(p.grad for p in net.parameters()) + adam_state_bytes(optimizer)
assert training_bytes(n, mixed_precision=False) == fp32_bytes, (
    f"fp32 training with Adam measured {fp32_bytes / n:g} bytes per parameter, the function says "
    f"{training_bytes(n, mixed_precision=False) / n:g}"
)

# Mixed precision: bf16 weights and gradients for forward and backward, an fp32 master copy for Adam.
low = Classifier().to(torch.bfloat16)
master = [p.detach().float() for p in low.parameters()]
optimizer = torch.optim.Adam(master)
low(features.bfloat16()).float().square().mean().backward()
for m, p in zip(master, low.parameters(), strict=True):
    m.grad = p.grad.float()  # the update is computed in fp32...
optimizer.step()
with torch.no_grad():
    for m, p in zip(master, low.parameters(), strict=True):
        p.copy_(m)  # ...and rounded into the bf16 weights that the next forward uses
        m.grad = None  # the fp32 copy of the gradient is temporary
mixed_bytes = (
    nbytes(low.parameters()) + nbytes(p.grad for p in low.parameters()) + nbytes(master) + adam_state_bytes(optimizer)
)
assert training_bytes(n, mixed_precision=True) == mixed_bytes, (
    f"mixed precision measured {mixed_bytes / n:g} bytes per parameter, the function says "
    f"{training_bytes(n, mixed_precision=True) / n:g}. Count them: bf16 weights, bf16 gradients, an fp32 master "
    "copy, and Adam's two fp32 moments. Mixed precision saves activation memory and time, not model state"
)
gigabytes = training_bytes(7_000_000_000, mixed_precision=True) / 1e9
print(f"7B parameters with Adam: {gigabytes:.0f} GB of model state before activations: more than one 80 GB GPU")


# %% tags=["solution"]
def training_bytes(n_params, mixed_precision):
    """Bytes of weights, gradients and Adam state for training n_params parameters (no activations)."""
    if mixed_precision:
        # bf16 weights (2) + bf16 gradients (2) + fp32 master weights (4) + Adam's fp32 moments (8): the update
        # must happen in fp32, because bf16 can't represent a small step added to a large weight.
        return n_params * (2 + 2 + 4 + 8)
    return n_params * (4 + 4 + 8)  # fp32 weights, gradients and the two moments; torch.autocast also keeps these


# %% [markdown]
# ## Exercise 2 · Export with a dynamic batch dimension
#
# The server collects requests for a few milliseconds and sends the model a batch of anywhere from 1 to 64.
# `export_for_serving` turns the model into an `ExportedProgram` from one example batch. The program it
# ships was traced with a batch of 8, and `torch.export` makes every shape of the example static unless
# told otherwise.
#
# The check runs the exported program on batches of 1, 3 and 64 and compares the outputs with eager mode.
# As shipped, the program rejects every batch that isn't 8 with a failed shape guard. Fix the export so the
# batch dimension is dynamic, from 1 to 64. Hint: `torch.export.Dim` and the `dynamic_shapes` argument,
# with one entry per input.


# %% tags=["exercise"]
def export_for_serving(model, example):
    """Export `model` for a server that sends batches of 1 to 64 requests."""
    model.eval()  # export what is served: Dropout off
    return torch.export.export(model, (example,))  # TODO: which batch sizes will this program accept?


# %% tags=["check"]
program = export_for_serving(model, features)
for batch in (1, 3, 64):
    requests = torch.randn(batch, 16)
    try:
        scores = program.module()(requests)
    except (AssertionError, RuntimeError) as err:  # a shape guard that fails raises here, at run time
        raise AssertionError(
            f"the exported program rejects a batch of {batch} ({err}). torch.export makes every shape of the "
            "example static unless dynamic_shapes marks the dimension dynamic with a Dim"
        ) from None
    assert scores.shape == (batch, 4), f"batch {batch}: got scores of shape {tuple(scores.shape)}"
    assert torch.allclose(scores, model(requests), atol=1e-6), (
        f"batch {batch}: the exported program disagrees with eager mode: was it exported in eval mode?"
    )
print("one exported program serves batches of 1, 3 and 64")


# %% tags=["solution"]
def export_for_serving(model, example):
    """Export `model` for a server that sends batches of 1 to 64 requests."""
    model.eval()  # export what is served: Dropout off
    batch = Dim("batch", min=1, max=64)  # a symbol for dim 0, with the range the server promises
    # One entry per input: {dimension: Dim}. Dimensions not listed (the 16 features) stay static.
    return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))


# %% [markdown]
# ## Exercise 3 · Make the NumPy post-processing exportable
#
# The old service kept the top-k scores of each request with a NumPy routine. Eager mode runs it, but
# `torch.export` traces with *fake* tensors, which have shapes and no data, so it can't run NumPy code. The
# fix is to wrap the routine as a custom op, one opaque node in the graph, and to register a fake
# implementation that tells the tracer the output's shape and dtype without computing anything.
#
# The shipped fake was copied from an elementwise op and claims the output has the input's shape. The check
# runs `torch.library.opcheck`, which compares the fake with the real kernel (among other tests), then
# exports the classifier followed by `top_k_scores` with a dynamic batch and compares it with eager mode on
# a batch of 3. Fix the fake. Hint: what shape does the kernel return for scores of shape `(B, C)`?


# %% tags=["exercise"]
@torch.library.custom_op("lab::top_k_scores", mutates_args=())  # the type hints become the op's schema
def top_k_scores(scores: torch.Tensor, k: int) -> torch.Tensor:
    """The k highest scores of each row, highest first; NumPy, so export can't look inside."""
    ranked = -np.sort(-scores.numpy(force=True), axis=-1)
    return torch.from_numpy(ranked[:, :k].copy()).to(scores.device)


@top_k_scores.register_fake  # what the tracer calls instead of the kernel: shapes and dtypes, no data
def _(scores, k):
    return torch.empty_like(scores)  # TODO: is the output really the same shape as the input?


# %% tags=["check"]
try:
    torch.library.opcheck(top_k_scores, (torch.randn(5, 4), 2))
except Exception as err:  # opcheck raises OpCheckError, naming the test that failed and why
    raise AssertionError(f"opcheck rejects the op: {err}") from None


class Ranker(nn.Module):
    """The served model: the classifier, then the top-2 scores of each request."""

    def __init__(self, classifier):
        super().__init__()
        self.classifier = classifier

    def forward(self, x):
        return top_k_scores(self.classifier(x), 2)


ranker = Ranker(model).eval()
program = torch.export.export(ranker, (features,), dynamic_shapes=({0: Dim("batch", min=1, max=64)},))
ops = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
assert "lab.top_k_scores.default" in ops, f"the custom op should be one node of the exported graph, got {ops}"
requests = torch.randn(3, 16)
top = program.module()(requests)
assert top.shape == (3, 2) and torch.allclose(top, ranker(requests), atol=1e-6), (
    "the exported program disagrees with eager mode on a batch of 3"
)
print("opcheck passes, and the exported graph holds the op as one node:", ops)


# %% tags=["solution"]
@torch.library.custom_op("lab::top_k_scores", mutates_args=())  # the type hints become the op's schema
def top_k_scores(scores: torch.Tensor, k: int) -> torch.Tensor:
    """The k highest scores of each row, highest first; NumPy, so export can't look inside."""
    ranked = -np.sort(-scores.numpy(force=True), axis=-1)
    return torch.from_numpy(ranked[:, :k].copy()).to(scores.device)


@top_k_scores.register_fake  # what the tracer calls instead of the kernel: shapes and dtypes, no data
def _(scores, k):
    # (B, C) in, (B, k) out, with the input's dtype and device. scores.shape[0] may be a symbol (the
    # dynamic batch), so use it as is and never read the data.
    return scores.new_empty(scores.shape[0], k)


# %% [markdown]
# ## What to say in the interview
#
# - "Model state for Adam is 16 bytes per parameter, in fp32 and in bf16 mixed precision alike: mixed
#   precision halves the weights and gradients but adds an fp32 master copy, and Adam's moments stay fp32.
#   A 7B model needs 112 GB before activations, so it needs sharding (FSDP or ZeRO), not just a big GPU."
# - "With `torch.autocast` the parameters and gradients stay fp32; the bf16 copies are temporary. The
#   savings of mixed precision are in activations and speed."
# - "`torch.export` is static by default: every shape of the example is a guard. I declare the dynamic
#   dimensions with `Dim` and a range in `dynamic_shapes`, and test the program inside and at the edges of
#   each range."
# - "Export in eval mode. The graph still holds `aten.dropout`, but with `train=False`; a program exported
#   in training mode ships live dropout, and its outputs change from call to call."
# - "Code the tracer can't see (NumPy, a vendor kernel) becomes a `torch.library.custom_op` with a
#   `register_fake` that computes only shapes and dtypes, plus `register_autograd` if it needs gradients.
#   `opcheck` is the test: a wrong fake passes eager mode and fails only when someone compiles or exports."
