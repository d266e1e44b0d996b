# %% [markdown]
# # Lab · Look under the hood
#
# Three tasks from an ML-infrastructure team's backlog, each one a place where PyTorch's machinery shows
# through. A kernel written with NumPy works in eager mode and breaks the moment someone compiles it. The
# capacity planner wants the FLOPs of a layer too big to allocate on a laptop. And a gradient-penalty loss
# crashes as soon as its blocks are checkpointed to save memory.
#
# You practise registering an op so the dispatcher, the compiler and autograd all know what to do with it;
# writing a `TorchDispatchMode` that sees the ATen ops of the forward *and* backward pass, on fake tensors;
# and choosing the checkpoint implementation that works with double backward. It takes about 30 minutes,
# and draws on Module 11 · The dispatcher, Q175–Q176 (kernels per dispatch key, fake tensors), Tensor
# subclasses and modes, Q179 (counting ops and FLOPs with a mode), and The autograd engine, Q183 (reentrant
# backward and checkpointing).
#
# Runs on the CPU in seconds. Colab or any install with torch >= 2.6 has everything; nothing to install.

# %%
import numpy as np
import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import checkpoint
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)


class OpLog(TorchDispatchMode):
    """Records the ATen op of every call made inside `with OpLog() as log:` in `log.ops`."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


# %% [markdown]
# ## Exercise 1 · Make the op survive compilation
#
# `lab::softclip` squashes values into (-1, 1) with `x / (1 + |x|)`. Its kernel is NumPy, so it is a
# `torch.library.custom_op`: one opaque operator with a CPU kernel. Eager mode works. The team wants it
# inside a compiled model, and trained.
#
# The check compiles a function that calls the op with `backend="aot_eager"` and `fullgraph=True`, runs
# `torch.library.opcheck`, checks the gradient with `gradcheck` in float64, and traces one call with
# `OpLog` to make sure the op stays one node. As shipped, the compiler traces with fake tensors and finds
# no way to run the op on them, and autograd finds no formula. Hint: the op needs two more registrations,
# one for each complaint; `register_fake` computes only the output's shape and dtype.


# %% tags=["exercise"]
@torch.library.custom_op("lab::softclip", mutates_args=())
def softclip(x: torch.Tensor) -> torch.Tensor:
    """x / (1 + |x|), computed with NumPy: opaque to the compiler and to autograd."""
    a = x.numpy(force=True)
    return torch.from_numpy(a / (1 + np.abs(a))).to(x.device)


# TODO: the compiler traces with fake tensors, and autograd needs a formula: register both.


# %% tags=["check"]
x = torch.randn(6, requires_grad=True)
try:
    compiled = torch.compile(lambda t: softclip(t) * 2, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), 2 * x / (1 + x.abs()))
except Exception as err:
    raise AssertionError(
        f"torch.compile can't trace the op ({type(err).__name__}): it runs the op on fake tensors, which have "
        "shapes and no data. Register a fake implementation"
    ) from None
try:
    torch.library.opcheck(softclip, (x,))
    double = torch.randn(6, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(softclip, (double,))
except Exception as err:
    raise AssertionError(f"the op has no correct gradient yet: {str(err)[:200]}") from None
with OpLog() as log:
    softclip(x)
assert log.ops == ["lab.softclip.default"], f"the op should be one node below autograd, the trace shows {log.ops}"
print("compiled, opcheck and gradcheck pass, and a dispatch trace shows one op:", log.ops)


# %% tags=["solution"]
@torch.library.custom_op("lab::softclip", mutates_args=())
def softclip(x: torch.Tensor) -> torch.Tensor:
    """x / (1 + |x|), computed with NumPy: opaque to the compiler and to autograd."""
    a = x.numpy(force=True)
    return torch.from_numpy(a / (1 + np.abs(a))).to(x.device)


@softclip.register_fake  # the Meta-like kernel the compiler runs on fake tensors: shape and dtype only
def _(x):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad / (1 + x.abs()) ** 2  # d/dx x / (1 + |x|) = 1 / (1 + |x|)^2


# the Autograd key's kernel: ordinary torch ops, so it works under compile and double backward too
softclip.register_autograd(_backward, setup_context=_setup_context)


# %% [markdown]
# ## Exercise 2 · Cost a layer you can't allocate
#
# The capacity planner asks how many FLOPs one training step of a transformer MLP block takes: d_model 4096,
# a 16384-wide hidden layer, 2048 tokens. Its weights alone are half a gigabyte, and a step's activations
# several more. You answer without allocating any of it: build the block under `FakeTensorMode`, where
# every tensor has a shape and no data, and count with a `TorchDispatchMode`, which sees the ATen ops of
# the forward and of the backward.
#
# `MatmulFlops` counts 2·M·N·K for each matmul it sees. The check runs one step (forward and backward)
# under your mode and under PyTorch's `FlopCounterMode`, and compares the totals; it also makes sure every
# tensor was fake. As shipped, the count is short. Hint: print the ops the mode sees (`OpLog` above).
# `nn.Linear` with a bias decomposes to `aten.addmm(bias, input, weight_t)`, and the backward uses
# `aten.mm`.


# %% tags=["exercise"]
class MatmulFlops(TorchDispatchMode):
    """Adds up 2*M*N*K for every matrix multiply run inside the mode."""

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.outputs_fake = True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.ops.aten.mm.default:
            a, b = args
            self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        # TODO: is mm the only matrix multiply a Linear layer runs?
        if isinstance(out, torch.Tensor):
            self.outputs_fake &= isinstance(out, FakeTensor)
        return out


# %% tags=["check"]
with FakeTensorMode():
    block = nn.Sequential(nn.Linear(4096, 16384), nn.GELU(), nn.Linear(16384, 4096))
    tokens = torch.randn(2048, 4096)
    with FlopCounterMode(display=False) as reference, MatmulFlops() as mine:
        block(tokens).sum().backward()
assert mine.outputs_fake, "some op returned a real tensor: build everything inside FakeTensorMode"
expected = reference.get_total_flops()
assert mine.flops == expected, (
    f"MatmulFlops counted {mine.flops / 1e12:.3f} TFLOPs, FlopCounterMode {expected / 1e12:.3f}. Which matmul "
    "ops does the forward run? Log them"
)
print(f"one training step of the block: {expected / 1e12:.2f} TFLOPs, counted without allocating a byte")


# %% tags=["solution"]
class MatmulFlops(TorchDispatchMode):
    """Adds up 2*M*N*K for every matrix multiply run inside the mode."""

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.outputs_fake = True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.ops.aten.mm.default:  # the backward's gradients of inputs and weights
            a, b = args
            self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        elif func is torch.ops.aten.addmm.default:  # Linear's forward: bias + input @ weight.T
            _, a, b = args[:3]
            self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]  # the bias add is not counted
        if isinstance(out, torch.Tensor):
            self.outputs_fake &= isinstance(out, FakeTensor)
        return out


# %% [markdown]
# ## Exercise 3 · The gradient penalty that won't differentiate
#
# A critic is trained with a gradient penalty, as in WGAN-GP: the loss includes `(‖∇ₓ critic(x)‖ - 1)²`,
# so the step differentiates a gradient, with `torch.autograd.grad(..., create_graph=True)`. To save
# memory, someone checkpointed the critic's blocks, and the step now crashes.
#
# The check runs `penalty_step` on a checkpointed critic and on a copy without checkpointing, and compares
# the penalty and every parameter's gradient (to 1e-6). It also counts the tensors autograd saves during
# the forward pass with `saved_tensors_hooks`: checkpointing must save fewer than the plain critic. Hint:
# the error message names the checkpoint implementation that can't do this.


# %%
class Critic(nn.Module):
    """Three residual MLP blocks and a scalar score; each block runs through `run(block, x)` if given."""

    def __init__(self, run=None):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 8)) for _ in range(3))
        self.head = nn.Linear(8, 1)
        self.run = run

    def forward(self, x):
        for block in self.blocks:
            x = x + (self.run(block, x) if self.run else block(x))
        return self.head(x)


def penalty_step(critic, x):
    """The gradient penalty of `critic` at `x`, backpropagated into the parameters; returns the penalty."""
    x = x.detach().requires_grad_()
    (grad_x,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    penalty = ((grad_x.norm(dim=1) - 1) ** 2).mean()
    penalty.backward()
    return penalty.detach()


# %% tags=["exercise"]
def run_block(block, x):
    """One block of the critic, checkpointed: its activations are recomputed in backward."""
    return checkpoint(block, x, use_reentrant=True)


# %% tags=["check"]
def saved_during_forward(critic, x):
    """How many tensors autograd saves for backward during one forward pass."""
    count = 0

    def pack(tensor):
        nonlocal count
        count += 1
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        critic(x.detach().requires_grad_())
    return count


plain, ckpt = Critic(), Critic(run=run_block)
ckpt.load_state_dict(plain.state_dict())
batch = torch.randn(16, 8)
try:
    ckpt_penalty = penalty_step(ckpt, batch)
except RuntimeError as err:
    raise AssertionError(f"the checkpointed step fails: {str(err)[:160]}") from None
plain_penalty = penalty_step(plain, batch)
torch.testing.assert_close(ckpt_penalty, plain_penalty, atol=1e-6, rtol=0)
for (name, p), q in zip(ckpt.named_parameters(), plain.parameters(), strict=True):
    if q.grad is None:  # the penalty doesn't depend on it (biases feeding the linear head)
        continue
    assert p.grad is not None, f"{name} got no gradient through the checkpointed blocks"
    torch.testing.assert_close(p.grad, q.grad, atol=1e-6, rtol=0, msg=f"{name}: gradients differ")
saved_ckpt, saved_plain = saved_during_forward(ckpt, batch), saved_during_forward(plain, batch)
assert saved_ckpt < saved_plain, f"checkpointing saved {saved_ckpt} tensors, no fewer than {saved_plain}"
print(f"penalty {plain_penalty:.4f} either way; the forward saves {saved_ckpt} tensors instead of {saved_plain}")


# %% tags=["solution"]
def run_block(block, x):
    """One block of the critic, checkpointed: its activations are recomputed in backward."""
    # The reentrant version runs a nested backward inside the outer one and refuses autograd.grad. The
    # non-reentrant one recomputes through saved-tensor hooks, so grad(create_graph=True) and the second
    # backward work, with the same gradients.
    return checkpoint(block, x, use_reentrant=False)


# %% [markdown]
# ## What to say in the interview
#
# - "A custom op is an entry in the dispatcher's table, with a kernel per dispatch key. The compiler traces
#   with fake tensors, so it needs the Meta-like fake; autograd needs a kernel on the Autograd key, which
#   `register_autograd` provides. `opcheck` tests both, and a dispatch trace shows the op as one node."
# - "To cost a model I don't allocate it: fake tensors carry shapes, and a `TorchDispatchMode` sees every
#   ATen op of the forward and backward. `Linear` is `addmm` forward and two `mm` backward; a counter that
#   misses an op, or an op with no formula, silently undercounts. I check it against `FlopCounterMode`."
# - "Reentrant checkpointing runs a backward inside the backward and can't take `autograd.grad`; I use
#   `use_reentrant=False`, which recomputes through saved-tensor hooks and gives identical gradients, with
#   fewer tensors saved."
