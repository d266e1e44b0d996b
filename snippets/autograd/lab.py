# %% [markdown]
# # Lab · Debug three training scripts whose gradients are None or wrong
#
# A teammate asks for help with three scripts. In each one nothing raises, and something is still off:
# a weight that never moves, a learnable scale stuck at its initial value, and a custom autograd
# Function that passed its unit test but trains differently from the built-in op.
# This is the debugging conversation that interviewers like to simulate: "my gradients are None, or
# wrong, and there is no error. Where do you look?"
#
# You practise finding where the graph ends: which tensors are leaves, which operations cut the graph
# without a word, and how to prove a hand-written backward right with `gradcheck`. Each check trains or
# differentiates the real code and reports what it found. Plan on 30 to 45 minutes.
#
# The lab draws on Module 2 · The dynamic graph, Q19, Q20, Q22 and Q23; Stopping gradients, Q24–Q25;
# Extending autograd, Q27 and the Silent Killer drill.
#
# Everything runs on a CPU in a few seconds. Colab, or any install with torch 2.6 or later, has all it
# needs: there is nothing to install.

# %%
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import gradcheck

torch.manual_seed(0)

# Exercise 1: a linear regression, Y = X @ true_w + 0.5, fitted by hand-written SGD.
X = torch.randn(128, 4)
true_w = torch.randn(4, 2)
Y = X @ true_w + 0.5


def sgd_fit(params, steps=100, lr=0.1, retain_graph=False):
    """Fit Y ~ X @ w + b with plain SGD; returns the loss of every step."""
    w, b = params
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(X @ w + b, Y)
        loss.backward(retain_graph=retain_graph)
        with torch.no_grad():  # an update is not part of the model: don't record it
            for p in params:
                if p.grad is not None:  # like torch.optim: no gradient, no update
                    p -= lr * p.grad
                    p.grad = None
        losses.append(loss.item())
    return losses


# Exercise 2: four well-separated classes of 8-dimensional points.
n_classes = 4
centers = 3 * torch.randn(n_classes, 8)
labels = torch.arange(256) % n_classes
features = centers[labels] + torch.randn(256, 8)

print(torch.__version__)

# %% [markdown]
# ## Exercise 1 · Find the weight that never learns
#
# `init_params` creates the weight and bias of the regression, with a small random weight, and `sgd_fit`
# (in the setup cell) trains them. The first version crashed on the second step with "Trying to backward
# through the graph a second time ... Specify retain_graph=True", so your teammate did what the message
# says. Now it runs, and the loss stalls far above zero: the bias learns the offset, and the weight stays
# exactly where it started. `sgd_fit`, like every optimizer, skips a tensor that has no gradient, so
# only a `UserWarning` hints at the problem. Ask which tensor `torch.randn(..., requires_grad=True) * 0.1`
# returns, where `backward()` writes gradients, and why the graph ran twice through the same node.
#
# The check runs one backward and asks that both returned tensors got a `.grad`, then trains with the
# default `retain_graph=False` and expects the loss to fall below 1 % of its first value. It also checks
# that the weight still starts small (standard deviation near 0.1). Hint: do the arithmetic first and
# switch on tracking after it, so that the tensor you return is the leaf. `retain_grad()` is not the
# fix, and neither is `retain_graph=True`.


# %% tags=["exercise"]
def init_params(n_in, n_out):
    """A small random weight (std 0.1) and a zero bias, both trainable."""
    w = torch.randn(n_in, n_out, requires_grad=True) * 0.1  # TODO: is w what backward fills?
    b = torch.zeros(n_out, requires_grad=True)
    return w, b


# The teammate's workaround for "backward through the graph a second time": it runs, but look at the loss.
losses = sgd_fit(init_params(4, 2), retain_graph=True)
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")


# %% tags=["check"]
w, b = init_params(4, 2)
F.mse_loss(X @ w + b, Y).backward()
missing = [name for name, p in (("w", w), ("b", b)) if not p.is_leaf or p.grad is None]
assert not missing, (
    f"no .grad on {missing}: backward fills .grad only on leaves. randn(..., requires_grad=True) * 0.1 "
    "returns the product, a non-leaf with grad_fn=MulBackward0, and the leaf behind it is out of reach. "
    "That one MulBackward0 node, recorded once at init, sits in every step's graph: the first backward "
    "freed what it saved, hence the crash on step 2. retain_grad() would keep a .grad on the product, "
    "but the tensor you update must be the leaf itself"
)
assert w.requires_grad and b.requires_grad, "both parameters must require grad"
assert 0.05 < w.detach().std() < 0.2, f"keep the small init: w has std {w.detach().std():.3f}, expected about 0.1"
w.grad, b.grad = None, None
losses = sgd_fit((w, b))
assert losses[-1] < 0.01 * losses[0], f"the loss only went from {losses[0]:.3f} to {losses[-1]:.3f}"
print(f"loss {losses[0]:.3f} -> {losses[-1]:.5f}; w and b are leaves and both learned")


# %% tags=["solution"]
def init_params(n_in, n_out):
    """A small random weight (std 0.1) and a zero bias, both trainable."""
    # Scale first, with tracking off, then make the result the leaf: nothing records the * 0.1.
    w = (torch.randn(n_in, n_out) * 0.1).requires_grad_()
    b = torch.zeros(n_out, requires_grad=True)
    return w, b  # inside an nn.Module, nn.Parameter(torch.randn(n_in, n_out) * 0.1) does the same


# %% [markdown]
# ## Exercise 2 · Unstick the learnable logit scale
#
# `CosineClassifier` compares normalised features with normalised class prototypes, so each logit is a
# cosine in [−1, 1], multiplied by a learnable scale `exp(log_scale)`, as in CLIP. The author caps the
# scale at 100 with Python's `min`, and calls `.item()` first to compare plain numbers. Training runs,
# the loss falls from about 1.4 to about 0.6, and there it stays: logits in [−1, 1] can't make a confident
# prediction, and the scale that should grow never moves. `.item()` returns a Python float, which
# autograd can't follow, so `log_scale` is never reached by `backward()`. Adam skips it, as it skips
# every parameter whose `.grad` is `None`. `.detach()`, `torch.no_grad()` and a round trip through
# NumPy cut the graph just as quietly.
#
# The check runs one backward and lists the parameters whose `.grad` is `None`, the fastest way to find
# a cut. Then it trains with Adam and expects the loss below 0.1, and a scale that grew. Hint: keep the
# cap, but with a tensor op that autograd records.


# %% tags=["exercise"]
class CosineClassifier(nn.Module):
    def __init__(self, n_in, n_classes, dim=16):
        super().__init__()
        self.encoder = nn.Linear(n_in, dim)
        self.prototypes = nn.Parameter(torch.randn(n_classes, dim))
        self.log_scale = nn.Parameter(torch.zeros(()))  # the scale starts at exp(0) = 1

    def forward(self, x):
        z = F.normalize(self.encoder(x), dim=1)
        p = F.normalize(self.prototypes, dim=1)
        scale = min(self.log_scale.exp().item(), 100.0)  # TODO: cap at 100 without leaving the graph
        return scale * z @ p.T


# %% tags=["check"]
torch.manual_seed(1)
model = CosineClassifier(8, n_classes)
F.cross_entropy(model(features), labels).backward()
no_grad = [name for name, p in model.named_parameters() if p.grad is None]
assert not no_grad, (
    f"no gradient reached {no_grad}: somewhere between that parameter and the loss the graph is cut "
    "(.item(), .detach(), torch.no_grad() or NumPy), and the optimizer will skip it without a word"
)
model.zero_grad()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(100):
    loss = F.cross_entropy(model(features), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert loss.item() < 0.1, f"the loss plateaued at {loss.item():.3f}: with the scale stuck near 1, logits stay small"
scale = model.log_scale.exp().item()
assert scale > 2, f"the learnable scale is {scale:.2f}: it should have grown well above its initial 1"
print(f"final loss {loss.item():.4f}, learned scale {scale:.2f}")


# %% tags=["solution"]
class CosineClassifier(nn.Module):
    def __init__(self, n_in, n_classes, dim=16):
        super().__init__()
        self.encoder = nn.Linear(n_in, dim)
        self.prototypes = nn.Parameter(torch.randn(n_classes, dim))
        self.log_scale = nn.Parameter(torch.zeros(()))  # the scale starts at exp(0) = 1

    def forward(self, x):
        z = F.normalize(self.encoder(x), dim=1)
        p = F.normalize(self.prototypes, dim=1)
        # clamp is a tensor op, so autograd records it: the gradient flows to log_scale below the cap
        # (and is 0 above it, which is what a cap means). .item() returned a constant.
        scale = self.log_scale.exp().clamp(max=100.0)
        return scale * z @ p.T


# %% [markdown]
# ## Exercise 3 · Catch the custom backward that passed its unit test
#
# `LogSumExp` computes `log(sum(exp(x)))` over the last dimension, stably (it subtracts the row maximum
# first), with a hand-written backward: the derivative of logsumexp is the softmax of the row. The
# author's unit test, `LogSumExp.apply(x).sum().backward()` compared with `torch.logsumexp`, passes.
# But `backward` does not compute a derivative, it computes a vector-Jacobian product: it receives
# `grad_output`, the gradient of the loss with respect to this Function's output, and must return the
# gradient with respect to its input. A test that ends in `.sum()` always passes `grad_output` as ones,
# and so does not notice a backward that ignores it. A mean, a weighted loss or any layer after this
# one does.
#
# The check runs the author's test (it passes), then `torch.autograd.gradcheck` on float64 inputs,
# which compares your backward with finite differences for every output element. Float64 matters:
# in float32 the finite differences are too coarse, and gradcheck fails even a correct backward.
# Hint: `grad_output` has shape `(N,)`, the softmax `(N, C)`. Line them up on purpose: a `(3, 3)`
# input is among the checks.


# %% tags=["exercise"]
class LogSumExp(torch.autograd.Function):
    """log(sum(exp(x))) over the last dimension, computed stably, with a hand-written backward."""

    @staticmethod
    def forward(x):
        m = x.amax(dim=-1, keepdim=True)
        return (m + (x - m).exp().sum(dim=-1, keepdim=True).log()).squeeze(-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(-1)).exp()  # d out[i] / d x[i, j] = softmax(x[i])[j]
        return softmax  # TODO: the chain rule


# %% tags=["check"]
# The author's unit test: it passes even with the bug, because .sum() seeds grad_output with ones.
x = torch.randn(4, 6, requires_grad=True)
LogSumExp.apply(x).sum().backward()
reference = x.detach().clone().requires_grad_()
torch.logsumexp(reference, dim=-1).sum().backward()
assert torch.allclose(x.grad, reference.grad, atol=1e-6), "even the author's .sum() test fails now"

for shape in [(2, 3), (3, 3)]:
    x64 = torch.randn(shape, dtype=torch.float64, requires_grad=True)  # float64: finite differences need it
    try:
        gradcheck(LogSumExp.apply, (x64,))
    except RuntimeError as error:  # GradcheckError, or an error raised inside backward
        raise AssertionError(
            f"gradcheck rejects the backward for a {shape} input. In its printout the rows are the elements "
            "of x and the columns the outputs. Output i depends only on row i of x, so each column is zero "
            "outside that row's elements, as in the numerical Jacobian. A backward that ignores grad_output, "
            f"or lines it up with the wrong dimension, fills those zeros.\n{error}"
        ) from None

# A loss that does not seed ones, and inputs large enough to overflow exp.
x = torch.tensor([[1000.0, 1000.0, 0.0], [-5.0, 0.0, 5.0]], requires_grad=True)
weights = torch.tensor([0.3, -2.0])
(LogSumExp.apply(x) * weights).sum().backward()
reference = x.detach().clone().requires_grad_()
(torch.logsumexp(reference, dim=-1) * weights).sum().backward()
assert torch.isfinite(x.grad).all(), "the gradient overflowed for inputs near 1000: compute it from saved values"
assert torch.allclose(x.grad, reference.grad, atol=1e-6), "a weighted loss gives gradients unlike torch.logsumexp's"
print("LogSumExp passes gradcheck in float64 and matches torch.logsumexp under a weighted loss")


# %% tags=["solution"]
class LogSumExp(torch.autograd.Function):
    """log(sum(exp(x))) over the last dimension, computed stably, with a hand-written backward."""

    @staticmethod
    def forward(x):
        m = x.amax(dim=-1, keepdim=True)
        return (m + (x - m).exp().sum(dim=-1, keepdim=True).log()).squeeze(-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(-1)).exp()  # exp(x - logsumexp(x)): finite even for huge x
        # Chain rule (a vector-Jacobian product): scale row i of the local derivative by grad_output[i].
        # unsqueeze(-1) turns (N,) into (N, 1) so it runs down the rows; a bare (N,) would broadcast
        # along the columns, raising for most shapes and silently mixing rows when N == C.
        return grad_output.unsqueeze(-1) * softmax


# %% [markdown]
# ## What to say in the interview
#
# - `backward()` fills `.grad` only on leaves that require grad and are reachable from the loss. A
#   tensor made by arithmetic on a tracked tensor is a non-leaf, so `randn(..., requires_grad=True) * 0.1`
#   gives a weight that never learns. Scale first and then `requires_grad_()`, or use `nn.Parameter`.
#   `torch.optim` refuses a non-leaf ("can't optimize a non-leaf Tensor"); a hand-written loop does not.
# - `None` is not zero: it means no path from the loss reached the tensor, and optimizers skip it. After
#   one backward, `[n for n, p in model.named_parameters() if p.grad is None]` finds every cut.
# - `.item()`, `.detach()`, `torch.no_grad()` and NumPy round trips all end the graph without an error.
#   For a cap, a clip or a mask inside the model, use tensor ops (`clamp`, `where`), which autograd
#   records.
# - A custom backward returns a vector-Jacobian product: it must use `grad_output`. A test that ends in
#   `.sum()` seeds ones and can't see that. Prove a backward with `gradcheck` on small float64 inputs
#   (float32 fails even correct code), and compare with the built-in op under a loss that isn't a plain
#   sum.
