# %% [markdown]
# # Lab · Look under the hood
#
# Six tasks from an ML-infrastructure team's backlog, one per page of the module, each a place where
# PyTorch's machinery shows through. A kernel written with NumPy works in eager mode and breaks the moment
# someone compiles it. The capacity planner wants the FLOPs of a layer too big to allocate on a laptop. A
# gradient-penalty loss crashes as soon as its blocks are checkpointed to save memory. A training job runs
# out of GPU memory with 74.5 MiB "reserved but unallocated". A compiler pass fuses one SiLU out of three. And
# a C++ extension's op exports, with every shape after it wrong.
#
# You practise registering an op so the dispatcher, the compiler and autograd all know what to do with it;
# writing a `TorchDispatchMode` that sees the ATen ops of the forward *and* backward pass, on fake tensors;
# choosing the checkpoint implementation that works with double backward; reading the caching allocator's
# memory snapshot the way the allocator does; writing an FX pass that matches every spelling of a pattern;
# and giving an extension's op the fake kernel that `torch.export` and `opcheck` need. It takes about an
# hour, and draws on Module 11 · The dispatcher, Q175–Q176 (kernels per dispatch key, fake tensors), Tensor
# subclasses and modes, Q179 (counting ops and FLOPs with a mode), The autograd engine, Q183 (reentrant
# backward and checkpointing), CUDA semantics, Q187 and Q190 (per-stream pools, `record_stream`, the
# allocator's rounding), Compiler internals, Q193 (FX passes inside `torch.compile`), and Extensions and the
# runtime, Q197–Q198 (an extension's op from Python, the export IR).
#
# Runs on the CPU in seconds, no GPU needed (the memory snapshot is given as data). Colab or any install with
# torch >= 2.6 has everything; nothing to install.

# %%
import operator

import numpy as np
import torch
import torch.nn.functional as F
from torch import fx, nn
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
# ## Exercise 4 · Read the memory snapshot behind an OOM
#
# A training job on a GPU dies with `CUDA out of memory. Tried to allocate 24.00 MiB`, although the message
# also says 74.50 MiB is "reserved by PyTorch but unallocated". Someone asks the obvious question: why didn't
# the allocator use the cached memory? You answer from the allocator's snapshot, the dict that
# `torch.cuda.memory._snapshot()` returns on a GPU: a list of segments (one `cudaMalloc` each, with its
# stream and its pool, `"small"` or `"large"`), each split into blocks that are `"active_allocated"`,
# `"active_awaiting_free"` or `"inactive"` (free, cached). The one below was taken at the OOM; no GPU needed.
#
# Write `can_reuse(snapshot, nbytes, stream)`, True when a cached block can take the request with no new
# `cudaMalloc`, and `new_segment_size(nbytes)`, the bytes `cudaMalloc` is asked for when none can. The check
# asks about nine requests and six segment sizes. Hint: the allocator rounds every request up to a multiple
# of 512 bytes; requests up to 1 MiB are served only by small segments, larger ones only by large segments;
# a block serves only the stream it was allocated on; a block awaiting free (a `record_stream` on a side
# stream whose work is still queued) is not free yet. A new segment is 2 MiB for a small request, 20 MiB for
# one under 10 MiB, and the request rounded up to 2 MiB above that (the 2.14 defaults, without
# `expandable_segments`).

# %%
MiB = 1 << 20
SIDE = 0x5A1DE  # the side stream's handle; the default stream is 0


def segment(stream, pool, blocks):
    """A segment of the snapshot; its blocks are given as (state, size in MiB), in address order."""
    blocks = [{"state": state, "size": int(mib * MiB)} for state, mib in blocks]
    return {"stream": stream, "segment_type": pool, "total_size": sum(b["size"] for b in blocks), "blocks": blocks}


snapshot = {  # taken at the OOM
    "segments": [
        segment(0, "large", [("active_allocated", 20), ("inactive", 14), ("active_allocated", 16), ("inactive", 14)]),
        segment(0, "large", [("active_allocated", 2), ("inactive", 8), ("active_allocated", 4), ("inactive", 6)]),
        segment(SIDE, "large", [("active_allocated", 8), ("inactive", 32)]),
        segment(0, "large", [("active_awaiting_free", 24)]),
        segment(0, "small", [("active_allocated", 1), ("inactive", 0.5), ("active_allocated", 0.5)]),
    ]
}
reserved = sum(seg["total_size"] for seg in snapshot["segments"])
cached = sum(b["size"] for seg in snapshot["segments"] for b in seg["blocks"] if b["state"] == "inactive")
print(f"reserved {reserved / MiB} MiB, of which {cached / MiB} MiB cached free")


# %% tags=["exercise"]
def can_reuse(snapshot, nbytes, stream):
    """True when a cached free block can take a request of `nbytes` on `stream`, with no new cudaMalloc."""
    free = sum(b["size"] for seg in snapshot["segments"] for b in seg["blocks"] if b["state"] == "inactive")
    return free >= nbytes  # TODO: can the allocator hand out a sum of pieces, from any stream and pool?


def new_segment_size(nbytes):
    """The bytes cudaMalloc is asked for when no cached block can take the request."""
    return nbytes  # TODO: the allocator rounds, and gives small and medium requests a bigger segment


# %% tags=["check"]
reuse_cases = [  # (request, stream, expected, why)
    (
        24 * MiB,
        0,
        False,
        "the default stream's 42 MiB free are pieces of 14, 14, 8 and 6 MiB; the free 32 MiB block is the side "
        "stream's, and the 24 MiB one still awaits free",
    ),
    (12 * MiB, 0, True, "a 14 MiB block is free on the default stream; the allocator splits it"),
    (14 * MiB, 0, True, "the 14 MiB block fits exactly"),
    (14 * MiB + 1, 0, False, "rounded up to 14 MiB + 512 B, it no longer fits the 14 MiB block"),
    (20 * MiB, SIDE, True, "the side stream has a free 32 MiB block"),
    (20 * MiB, 0, False, "the free 32 MiB block belongs to the side stream's pool, the 24 MiB one awaits free"),
    (300 * 1024, 0, True, "a small request: the small segment has a free 512 KiB block"),
    (600 * 1024, 0, False, "a small request is served by small segments only, whose largest free block is 512 KiB"),
    (MiB + 1, 0, True, "just over 1 MiB is a large request: the 6 MiB block takes it"),
]
for nbytes, stream, expected, why in reuse_cases:
    got = can_reuse(snapshot, nbytes, stream)
    where = "the default stream" if stream == 0 else "the side stream"
    assert got == expected, f"can_reuse({nbytes:,} bytes on {where}) returned {got}, expected {expected}: {why}"
segment_cases = [  # (request, expected segment)
    (24 * MiB, 24 * MiB),
    (25 * MiB + 1, 26 * MiB),
    (600 * 1024, 2 * MiB),
    (MiB, 2 * MiB),
    (MiB + 1, 20 * MiB),
    (9 * MiB, 20 * MiB),
]
for nbytes, expected in segment_cases:
    got = new_segment_size(nbytes)
    assert got == expected, (
        f"new_segment_size({nbytes:,}) returned {got:,}, expected {expected:,}: up to 1 MiB a 2 MiB segment, under "
        "10 MiB a 20 MiB one, above that the 512-rounded request rounded up to 2 MiB"
    )
print(
    f"the 24 MiB request can't use any of the {cached / MiB} MiB cached: it needs a new "
    f"{new_segment_size(24 * MiB) // MiB} MiB segment"
)


# %% tags=["solution"]
def round_size(nbytes):
    """Every request is rounded up to a multiple of 512 bytes (kMinBlockSize)."""
    return max(512, -(-nbytes // 512) * 512)


def can_reuse(snapshot, nbytes, stream):
    """True when a cached free block can take a request of `nbytes` on `stream`, with no new cudaMalloc."""
    size = round_size(nbytes)
    pool = "small" if size <= MiB else "large"  # two pools, and one set of them per stream
    return any(
        block["state"] == "inactive" and block["size"] >= size  # one block: pieces can't be combined
        for seg in snapshot["segments"]
        if seg["stream"] == stream and seg["segment_type"] == pool
        for block in seg["blocks"]
    )


def new_segment_size(nbytes):
    """The bytes cudaMalloc is asked for when no cached block can take the request."""
    size = round_size(nbytes)
    if size <= MiB:
        return 2 * MiB  # a small segment, shared by many small blocks
    if size < 10 * MiB:
        return 20 * MiB  # a large buffer that later medium requests can share
    return -(-size // (2 * MiB)) * (2 * MiB)


# %% [markdown]
# ## Exercise 5 · Fuse SiLU in a compiler backend
#
# A custom `torch.compile` backend rewrites `x * torch.sigmoid(x)` into one `F.silu(x)`, so the backend's
# kernel library can run it as one fused op. On the team's three-block MLP it fuses one block out of three:
# each block spells the pattern differently, the way real code does.
#
# Dynamo hands the backend an FX `GraphModule` of torch-level calls: `torch.sigmoid(h)` is a `call_function`
# node, `h.sigmoid()` a `call_method` node named `"sigmoid"`, and `*` is `operator.mul` while `torch.mul` is
# itself. The check compiles the model with your backend and asserts three rewrites, no `sigmoid` left in the
# graph, a graph that passes `lint()`, outputs and gradients equal to eager, and one call of the backend (no
# graph break). Hint: print `gm.graph` inside the backend; match both operand orders.


# %%
class Block(nn.Module):
    """Linear then SiLU, written in one of three spellings."""

    def __init__(self, spelling):
        super().__init__()
        self.lin, self.spelling = nn.Linear(16, 16), spelling

    def forward(self, x):
        h = self.lin(x)
        if self.spelling == "function":
            return h * torch.sigmoid(h)
        if self.spelling == "method":
            return h.sigmoid() * h
        return torch.mul(h, h.sigmoid())


def is_sigmoid_of(node, x):
    """Whether `node` computes sigmoid(x), as a torch function or as a Tensor method."""
    return (
        isinstance(node, fx.Node)
        and node.args[:1] == (x,)
        and (
            (node.op == "call_function" and node.target is torch.sigmoid)
            or (node.op == "call_method" and node.target == "sigmoid")
        )
    )


# %% tags=["exercise"]
def fuse_silu(gm: fx.GraphModule) -> int:
    """Rewrites every x * sigmoid(x) in the graph into F.silu(x); returns the number of rewrites."""
    rewritten = 0
    for node in list(gm.graph.nodes):
        # TODO: this matches one spelling: `*`, with the sigmoid call on the right
        if node.op == "call_function" and node.target is operator.mul:
            x, s = node.args
            if is_sigmoid_of(s, x):
                with gm.graph.inserting_after(node):
                    silu = gm.graph.call_function(F.silu, (x,))
                node.replace_all_uses_with(silu)
                gm.graph.erase_node(node)
                gm.graph.erase_node(s)
                rewritten += 1
    gm.graph.lint()
    gm.recompile()  # regenerate gm.code from the graph, or the old code runs
    return rewritten


# %% tags=["check"]
def backend(gm, example_inputs):
    """A torch.compile backend: rewrite the graph, then run it as Python (eagerly)."""
    rewrites.append(fuse_silu(gm))
    graphs.append(gm)
    return gm.forward


torch.manual_seed(0)
mlp = nn.Sequential(Block("function"), Block("method"), Block("torch.mul"), nn.Linear(16, 1))
inputs = torch.randn(8, 16)
rewrites, graphs = [], []
compiled_out = torch.compile(mlp, backend=backend)(inputs)
assert len(rewrites) == 1, f"the backend ran {len(rewrites)} times: a graph break split the model"
assert rewrites == [3], f"fuse_silu rewrote {rewrites[0]} of the 3 blocks: print gm.graph and compare the spellings"
left = [str(n.target) for n in graphs[0].graph.nodes if "sigmoid" in str(n.target)]
assert not left, f"sigmoid nodes left in the graph: {left}"
graphs[0].graph.lint()
compiled_out.sum().backward()
compiled_grads = [p.grad.clone() for p in mlp.parameters()]
mlp.zero_grad()
eager_out = mlp(inputs)
eager_out.sum().backward()
torch.testing.assert_close(compiled_out, eager_out)
for p, g in zip(mlp.parameters(), compiled_grads, strict=True):
    torch.testing.assert_close(g, p.grad)
silus = sum(n.target is F.silu for n in graphs[0].graph.nodes)
print(f"{silus} F.silu calls in the compiled graph; outputs and gradients equal eager")


# %% tags=["solution"]
def fuse_silu(gm: fx.GraphModule) -> int:
    """Rewrites every x * sigmoid(x) in the graph into F.silu(x); returns the number of rewrites."""
    rewritten = 0
    for node in list(gm.graph.nodes):
        is_mul = (node.op == "call_function" and node.target in (operator.mul, torch.mul)) or (
            node.op == "call_method" and node.target == "mul"
        )
        if not is_mul or len(node.args) != 2 or node.kwargs:
            continue
        a, b = node.args
        for x, s in ((a, b), (b, a)):  # both operand orders
            if is_sigmoid_of(s, x):
                with gm.graph.inserting_after(node):
                    silu = gm.graph.call_function(F.silu, (x,))
                node.replace_all_uses_with(silu)
                gm.graph.erase_node(node)
                if not s.users:  # the sigmoid may feed something else too
                    gm.graph.erase_node(s)
                rewritten += 1
                break
    gm.graph.lint()
    gm.recompile()
    return rewritten


# %% [markdown]
# ## Exercise 6 · Give an extension's op a fake kernel
#
# The serving team packs int4 weights with `labext::pack_nibbles` from their C++ extension: two 4-bit values
# per byte, so a `(rows, 2n)` uint8 tensor becomes `(rows, n)`. The extension's `.so` defines the schema and
# a CPU kernel (`TORCH_LIBRARY` and `TORCH_LIBRARY_IMPL`); the cell below does the same from Python with
# `torch.library.Library`, into the same dispatcher table, so no C++ build is needed here. What you can add
# from Python is what any C++ op needs before `torch.export` or `torch.compile` can trace it: a fake kernel.
#
# A teammate registered one, `torch.empty_like(x)`, and export stopped failing. The check runs
# `torch.library.opcheck`, exports a module that calls the op with a dynamic batch dimension, and compares
# the shape the graph records for the op's output (`node.meta["val"]`, which every later shape is computed
# from) with the shape the kernel really returns. Hint: a fake returns an empty tensor with the output's
# shape, dtype and device, computed from the inputs' (possibly symbolic) sizes, never from their values.

# %%
labext = torch.library.Library("labext", "FRAGMENT")  # what the extension's TORCH_LIBRARY block registers
labext.define("pack_nibbles(Tensor x) -> Tensor")


def pack_nibbles_cpu(x):
    """The CPU kernel: opaque code (NumPy here, C++ in the extension) that tracing can't run on fake tensors."""
    a = x.numpy()
    return torch.from_numpy((a[..., 0::2] | (a[..., 1::2] << 4)).astype(np.uint8))


labext.impl("pack_nibbles", pack_nibbles_cpu, "CPU")
pack_nibbles = torch.ops.labext.pack_nibbles.default


class Quantize(nn.Module):
    def forward(self, w):
        return pack_nibbles(w) + 0  # any op after it computes its shape from the fake's


weights = torch.randint(0, 16, (4, 6), dtype=torch.uint8)
print(pack_nibbles(weights).shape)


# %% tags=["exercise"]
@torch.library.register_fake("labext::pack_nibbles")
def _(x):
    return torch.empty_like(x)  # TODO: is this the shape and dtype the CPU kernel returns?


# %% tags=["check"]
try:
    torch.library.opcheck(pack_nibbles, (weights,))
except Exception as err:
    raise AssertionError(f"opcheck fails: {str(err)[:300]}") from None
try:
    rows = torch.export.Dim("rows")
    program = torch.export.export(Quantize(), (weights,), dynamic_shapes={"w": {0: rows}}).run_decompositions()
except Exception as err:
    raise AssertionError(f"export fails: {str(err)[:300]}") from None
nodes = [n for n in program.graph.nodes if n.op == "call_function"]
ops = [str(n.target) for n in nodes]
assert ops.count("labext.pack_nibbles.default") == 1, f"the op should stay one node in the export IR: {ops}"
recorded, real = nodes[ops.index("labext.pack_nibbles.default")].meta["val"], pack_nibbles(weights)
assert recorded.dtype == real.dtype and recorded.shape[1:] == real.shape[1:], (
    f"the graph records {tuple(recorded.shape)} {recorded.dtype} for the op's output, the kernel returns "
    f"{tuple(real.shape)} {real.dtype}: every shape after the op is computed from the wrong one"
)
assert isinstance(recorded.shape[0], torch.SymInt), "the batch dimension should stay symbolic: use x's sizes"
for batch_rows in (4, 5):
    w = torch.randint(0, 16, (batch_rows, 6), dtype=torch.uint8)
    assert torch.equal(program.module()(w), Quantize()(w)), f"the exported program differs at {batch_rows} rows"
print(f"opcheck passes, and the graph records (rows, {recorded.shape[1]}) {recorded.dtype} for the op's output")


# %% tags=["solution"]
@torch.library.register_fake("labext::pack_nibbles")
def _(x):
    # Shape, dtype and device only: half the last dimension, uint8. `x.shape[:-1]` may be symbolic (the
    # dynamic batch), so compute from it rather than from numbers. Reject what the kernel can't pack.
    torch._check(x.shape[-1] % 2 == 0, lambda: f"pack_nibbles needs an even last dimension, got {x.shape[-1]}")
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2), dtype=torch.uint8)


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
# - "Reserved but unallocated isn't one free block. The caching allocator rounds a request to 512 bytes,
#   serves it from one cached block of the right pool (small up to 1 MiB) on the same stream, and a block
#   held by `record_stream` isn't free until the other stream's work is done. When nothing fits it
#   `cudaMalloc`s a new segment. The memory snapshot shows all of it; `expandable_segments` is the fix for
#   fragmentation, not `empty_cache()`."
# - "A Dynamo backend gets an FX graph of torch-level calls, so a pass has to match every spelling: function,
#   method, operator, both operand orders. Then `lint()`, `recompile()`, and check outputs and gradients
#   against eager. At the ATen level (`make_fx`, AOTAutograd) the spellings are already one op."
# - "A C++ op arrives with its schema and kernels; from Python I add `register_fake` and, if it's
#   differentiable, `register_autograd`. The fake computes shape and dtype from the inputs' symbolic sizes;
#   a wrong one exports silently with wrong shapes in the graph, which is why I run `opcheck`."
