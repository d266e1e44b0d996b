# %% [markdown]
# # Lab · Find the graph break, the recompile and the bf16 loss
#
# You join a team whose model got `torch.compile` and bfloat16 autocast last week, and it isn't any
# faster. Three pieces of its code are to blame: a feature normalizer that breaks Dynamo's graph on
# every call, a model that recompiles at every training step, and a hand-written distillation
# loss that autocast quietly computes in bfloat16. All three give correct-looking results, and that is
# why they survive code review: you have to measure to find them.
#
# You practise the measuring and the fixing. A `torch.compile` backend is just a function that receives
# each graph Dynamo captures; the lab's counting backend records the graphs and runs them unchanged, so
# you can count graphs and compilations exactly, on a CPU, with no C++ compiler. Allow about 25
# minutes. The lab draws on Module 6 · torch.compile, Q82–Q84 (the pipeline, graph breaks and
# `fullgraph`, guards and recompiles), the drill Slower After Compiling (Q86), and Module 6 · Mixed
# precision, Q74 (what autocast does to each op).
#
# Graph capture, graph breaks, guards and recompiles are Dynamo's work, and they behave the same
# whichever backend consumes the graphs, so what you count here is what Inductor would compile on a
# GPU. Everything runs on a CPU in a few seconds. Colab, or any install with torch >= 2.6, has
# everything: there is nothing to install.

# %%
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class GraphCounter:
    """A torch.compile backend: records every FX graph Dynamo hands it and runs it unchanged.

    A backend is any callable `(graph_module, example_inputs) -> callable`. Returning `gm.forward` skips
    code generation; Inductor, the default backend, would compile each recorded graph into kernels.
    """

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


W1 = torch.randn(8, 32) / 8**0.5  # the weights of a small two-layer feature extractor
W2 = torch.randn(32, 4) / 32**0.5

counter = GraphCounter()
compiled = torch.compile(lambda t: torch.tanh(t) * 2, backend=counter)
compiled(torch.randn(4))  # compilation is lazy: the first call traces and compiles
compiled(torch.randn(4))  # same shape, dtype and device: the guards pass and the graph is reused
print("graphs:", len(counter.graphs))

# %% [markdown]
# ## Exercise 1 · Find the graph break
#
# `normalize_features` projects its input, applies ReLU, rescales the activations so that none exceeds
# 1, and projects again. The rescaling reads the peak activation with `.item()`, a Python float, and
# branches on it. While tracing, Dynamo doesn't know the value (it exists only when the graph runs), so
# it can't decide the branch: the graph ends at `.item()` (a graph break), the branch runs in Python,
# and tracing resumes in new graphs after it, specialized to the branch taken and, at first, to the
# float's value. Nothing fuses across the break, and each call pays a round trip through the
# interpreter.
#
# Rewrite the function so that Dynamo captures it as exactly one graph, with the same results. The
# check compiles your function with the counting backend, calls it on four batches of the same shape
# whose peaks fall on both sides of 1, compares each result with the eager computation, then requires
# one graph in total. Hint: keep the peak a tensor; dividing by a peak clamped from below at 1 is the
# same as dividing only when the peak exceeds 1.


# %% tags=["exercise"]
def normalize_features(x, w1, w2):
    h = torch.relu(x @ w1)
    peak = h.max().item()  # TODO: a Python float leaves the graph ...
    if peak > 1.0:  # ... and the branch on it runs in Python
        h = h / peak
    return h @ w2


# %% tags=["check"]
torch.compiler.reset()  # forget earlier compilations, so that re-running this cell counts afresh
counter = GraphCounter()
compiled = torch.compile(normalize_features, backend=counter)
for scale in [0.05, 3.0, 0.1, 5.0]:  # peaks below and above 1
    x = scale * torch.randn(16, 8)
    h = torch.relu(x @ W1)
    peak = float(h.max())
    expected = (h / peak if peak > 1.0 else h) @ W2
    torch.testing.assert_close(compiled(x, W1, W2), expected, msg="the result changed: rescale only when the peak > 1")
assert len(counter.graphs) == 1, (
    f"{len(counter.graphs)} graphs for one function: .item() breaks the graph, and the code after the break "
    "is compiled again for each branch and float value it meets. Keep the peak a tensor (clamp or torch.where)."
)
print("one graph, with", len(counter.graphs[0].graph.nodes), "nodes")


# %% tags=["solution"]
def normalize_features(x, w1, w2):
    h = torch.relu(x @ w1)
    peak = h.max().clamp(min=1.0)  # a 0-d tensor: it stays in the graph, and no Python branch is needed
    return (h / peak) @ w2  # dividing by 1 when the peak is at most 1 changes nothing


# To make sure a break never comes back, compile it with fullgraph=True in a test: a break then raises
# at compile time instead of silently splitting the graph.

# %% [markdown]
# ## Exercise 2 · One compilation, not one per step
#
# `AnnealedClassifier` divides its logits by a temperature that falls from 4 to 1 during training. The
# training loop calls `model.set_step(step)` before each forward pass, and `forward` computes the
# temperature from `self.step`, a Python int. Dynamo treats integer attributes of an `nn.Module` as
# constants: it bakes the value into the graph and installs a guard on it. The next step fails the
# guard, and Dynamo compiles the model again. With Inductor each compilation costs seconds, and after
# 8 of them (`recompile_limit`) Dynamo gives up and runs the model eagerly.
#
# Make the model compile once, keeping `set_step(step)` and `forward(x)` as they are. The check
# compiles your model with the counting backend, runs six steps on the same batch, compares each output
# with the eager computation for that step, then requires exactly one compilation. Hint: Dynamo never
# guards on a tensor's values, only on its metadata (shape, dtype, device and so on). A Python int
# *argument* would recompile only once before Dynamo made it dynamic; a module attribute recompiles
# every time.


# %% tags=["exercise"]
class AnnealedClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.step = 0  # TODO: Dynamo guards on the value of an int attribute

    def set_step(self, step):
        self.step = step

    def forward(self, x):
        temperature = max(1.0, 4.0 - 0.5 * self.step)
        return self.net(x) / temperature


# %% tags=["check"]
torch.compiler.reset()
counter = GraphCounter()
model = AnnealedClassifier()
compiled = torch.compile(model, backend=counter)
x = torch.randn(8, 16)
for step in range(6):
    model.set_step(step)
    with torch.no_grad():
        expected = model.net(x) / max(1.0, 4.0 - 0.5 * step)
    torch.testing.assert_close(compiled(x), expected, msg=f"wrong output at step {step}: check the temperature")
assert len(counter.graphs) == 1, (
    f"{len(counter.graphs)} compilations in 6 steps: Dynamo treats an int attribute of an nn.Module as a "
    "constant and guards on its value, so every new step recompiles. Keep the step in a tensor buffer."
)
print("compiled once for six steps")


# %% tags=["solution"]
class AnnealedClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        # A 0-d tensor buffer: the graph reads its value at run time, and no guard depends on it.
        # persistent=False keeps it out of state_dict; make it persistent if a checkpoint should resume it.
        self.register_buffer("step", torch.zeros(()), persistent=False)

    def set_step(self, step):
        self.step.fill_(step)  # in place, outside the compiled forward

    def forward(self, x):
        temperature = (4.0 - 0.5 * self.step).clamp(min=1.0)  # tensor math instead of Python's max
        return self.net(x) / temperature


# %% [markdown]
# ## Exercise 3 · Keep the loss in float32 under autocast
#
# The team distils a large teacher into a small student. The teacher's forward, the student's forward
# and the loss all run inside `torch.autocast("cpu", dtype=torch.bfloat16)`, which is right for the
# matmuls: they run in bfloat16. But `distillation_loss` is written by hand from `log_softmax`, `exp`,
# `sum` and `mean`, and on CPU none of those is on autocast's float32 list, so each follows its bf16
# input. The loss comes out in bfloat16, with 7 bits of mantissa (2 to 3 significant digits), and the
# KL divergence is a small difference of large log-probabilities, so the rounding costs about 3 % of its
# value here.
#
# Make `distillation_loss` compute in float32 while the models keep running in bfloat16. The check runs
# both models and your loss under autocast, then requires a float32 loss that matches
# `F.kl_div` computed in float32 from the same logits, to a relative 1e-5. Hint: switching autocast off
# inside the loss (`torch.autocast("cpu", enabled=False)`) doesn't convert anything; ops outside
# autocast follow their inputs, which are still bf16. Cast the inputs. And `F.kl_div`, which is on the
# float32 list, wouldn't save you either: its input, the `log_softmax`, would already be rounded.


# %% tags=["exercise"]
def distillation_loss(student_logits, teacher_logits, temperature=2.0):
    """KL(teacher || student) on temperature-softened distributions, scaled by T² (Hinton et al.)."""
    # TODO: under autocast on CPU, all of this follows the bf16 dtype of the logits
    log_p_student = F.log_softmax(student_logits / temperature, dim=-1)
    log_p_teacher = F.log_softmax(teacher_logits / temperature, dim=-1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=-1).mean()
    return kl * temperature**2


# %% tags=["check"]
teacher = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10)).requires_grad_(False)
student = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
x = torch.randn(256, 32)
with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.no_grad():
        teacher_logits = teacher(x)
    student_logits = student(x)
    loss = distillation_loss(student_logits, teacher_logits)
assert student_logits.dtype == teacher_logits.dtype == torch.bfloat16, "the models' matmuls run in bf16"
assert loss.dtype == torch.float32, (
    f"the loss is {loss.dtype}: log_softmax, exp, sum and mean follow their bf16 inputs under CPU autocast. "
    "Cast the logits with .float() at the top of the loss."
)
temperature = 2.0  # distillation_loss's default
expected = temperature**2 * F.kl_div(  # the float32 reference: built-in KL on float32 log-probabilities
    F.log_softmax(student_logits.float() / temperature, dim=-1),
    F.log_softmax(teacher_logits.float() / temperature, dim=-1),
    reduction="batchmean",
    log_target=True,
)
torch.testing.assert_close(
    loss,
    expected,
    rtol=1e-5,
    atol=1e-7,
    msg=lambda report: "the loss is float32 but not the float32 value: was a step computed in bf16 first?\n" + report,
)
loss.backward()
assert all(p.grad.dtype == torch.float32 for p in student.parameters()), "gradients of float32 weights are float32"
print(f"loss {loss.item():.6f} in {loss.dtype}")


# %% tags=["solution"]
def distillation_loss(student_logits, teacher_logits, temperature=2.0):
    """KL(teacher || student) on temperature-softened distributions, scaled by T² (Hinton et al.)."""
    # Upcast first: every op after this sees float32 inputs, and ops outside autocast's lists follow them.
    # The gradient flows back through the cast, so the student's bf16 matmuls still get it.
    student_logits, teacher_logits = student_logits.float(), teacher_logits.float()
    log_p_student = F.log_softmax(student_logits / temperature, dim=-1)
    log_p_teacher = F.log_softmax(teacher_logits / temperature, dim=-1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=-1).mean()
    return kl * temperature**2


# %% [markdown]
# ## What to say in the interview
#
# - Measure before you tune: count graphs and compilations. A backend that records each graph,
#   `torch._dynamo.explain`, `TORCH_LOGS="graph_breaks,recompiles"` and, in tests, `fullgraph=True`
#   and `torch.compiler.set_stance("fail_on_recompile")` show what `torch.compile` really did.
# - A graph break is not an error: results stay correct, only slower. `.item()`, `print`, logging and
#   branches on tensor values are the usual causes. Keep values as tensors (`clamp`, `torch.where`,
#   `torch.cond`) and move side effects out of the compiled region. `fullgraph=True` doesn't remove a
#   break; it turns it into an error.
# - Guards decide when Dynamo recompiles. A new batch size costs one recompile, and then the dimension
#   turns dynamic (`mark_dynamic` avoids even that one). An int attribute of an `nn.Module` is a
#   constant, so changing it recompiles every time, up to the limit of 8, after which the function runs
#   eagerly. State that changes every step belongs in a tensor.
# - Autocast changes dtypes per op. Matmuls and convolutions go to bf16 or fp16, a float32 list
#   (built-in losses among them) goes to float32, and everything else follows its inputs, so a
#   hand-written loss or reduction inherits bf16. The lists differ between CPU and CUDA; don't rely on
#   them, cast with `.float()` where precision matters. Disabling autocast doesn't upcast anything.
# - The weights, their gradients and the optimizer stay float32 under autocast; the saving is in
#   matmul throughput and activation memory, not in parameter memory.
