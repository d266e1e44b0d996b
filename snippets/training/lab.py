# %% [markdown]
# # Lab · Fix a Training Loop That Runs but Doesn't Learn
#
# A teammate hands you a small classification script: a model with BatchNorm and Dropout, a training
# epoch and a validation pass. It runs without a single error or warning, and it is wrong in three
# places. The training loss stalls above a floor, then, once that is fixed, it explodes, and the
# validation numbers change every time you run them. This is also a favourite live-coding format:
# "here is a loop, what is wrong with it?" You fix one bug per exercise, and each check proves the
# effect of the fix, not the shape of your code: a loss below a floor the buggy version cannot reach,
# gradients equal to a fresh reference, and a validation pass that gives the same numbers twice and
# leaves the model untouched.
#
# It draws on Module 3: Losses, Q45 (why `CrossEntropyLoss` takes logits), and The training loop, Q39
# (the train + validation loop), Q40 (where `zero_grad` goes) and Q42 (accumulating with `.item()`).
# Allow 20 to 30 minutes.
#
# Everything runs on a CPU in a few seconds. Colab, or any install with torch >= 2.6, has everything
# it needs: there is nothing to install.

# %%
import math

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
N_FEATURES, N_CLASSES = 16, 4

# 640 samples with 4 classes given by a hidden linear rule: an easy problem, so a correct loop nails it.
x = torch.randn(640, N_FEATURES)
y = (x @ torch.randn(N_FEATURES, N_CLASSES)).argmax(dim=1)
x_train, y_train, x_val, y_val = x[:512], y[:512], x[512:], y[512:]
train_loader = DataLoader(
    TensorDataset(x_train, y_train), batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(0)
)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=64)
loss_fn = nn.CrossEntropyLoss()


def train_set_loss(model: nn.Module) -> float:
    """The loss on the whole training set, in eval mode and without a graph: the number the checks judge."""
    model.eval()
    with torch.no_grad():
        return loss_fn(model(x_train), y_train).item()


print(f"{len(train_loader)} training batches; chance-level loss ln({N_CLASSES}) = {math.log(N_CLASSES):.3f}")

# %% [markdown]
# ## Exercise 1 · The model returns probabilities
#
# The teammate's `Classifier` ends with a softmax "so that the loss gets probabilities". But
# `CrossEntropyLoss` applies `log_softmax` itself, so the model's probabilities are softmaxed a second
# time. Nothing raises; the model just learns slowly, and the loss can never go below
# `ln(e + K - 1) - 1`, about 0.744 for K = 4 classes, even for perfect predictions.
#
# Fix `forward` so that the model works with `CrossEntropyLoss`. The check trains a fresh `Classifier`
# with a correct full-batch loop for 100 Adam steps and asserts that the training loss falls below 0.3,
# under the double-softmax floor.
#
# Hint: where do the probabilities belong, if not in the model?


# %% tags=["exercise"]
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(N_FEATURES, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, N_CLASSES)
        )

    def forward(self, x):
        # TODO: the loss below is CrossEntropyLoss
        return self.body(x).softmax(dim=-1)


# %% tags=["check"]
torch.manual_seed(1)
model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
floor = math.log(math.e + N_CLASSES - 1) - 1  # the best a double softmax can do: all probability on the target
for _ in range(100):  # full batch: every step sees all 512 samples
    model.train()
    optimizer.zero_grad()
    loss_fn(model(x_train), y_train).backward()
    optimizer.step()
final = train_set_loss(model)
assert final < 0.3, (
    f"the training loss stopped at {final:.3f} (the double-softmax floor is {floor:.3f}): "
    "does forward() return logits? CrossEntropyLoss applies log_softmax itself"
)
print(f"training loss after 100 steps: {final:.4f}, below the double-softmax floor {floor:.3f}")


# %% tags=["solution"]
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(N_FEATURES, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, N_CLASSES)
        )

    def forward(self, x):
        # Raw logits: CrossEntropyLoss is log_softmax + NLLLoss, fused and numerically stable. Call
        # logits.softmax(dim=-1) at inference only, to report probabilities (argmax needs no softmax at all).
        return self.body(x)


# %% [markdown]
# ## Exercise 2 · The loss explodes
#
# With logits fixed, the teammate's `train_one_epoch` trains with SGD and momentum, and the loss climbs
# past chance level in the first epoch and into the hundreds by the third. `loss.backward()` *adds*
# each batch's gradient into `.grad`, and nothing ever clears it: every step uses the sum of all the
# gradients so far.
#
# Fix `train_one_epoch`. The check does two things. With a plain linear model and `lr=0`, it asserts
# that after an epoch each `.grad` is either `None` or exactly the gradient of the last batch alone, not
# a running sum. Then it trains a fresh `Classifier` for 6 epochs with SGD (`lr=0.05`,
# `momentum=0.9`) and asserts that the training loss ends below 0.3.
#
# Hint: one line is missing. Where may it go, and where may it not?


# %% tags=["exercise"]
def train_one_epoch(model, loader, loss_fn, optimizer) -> float:
    model.train()  # evaluate() switches to eval mode, so every epoch switches back
    total, seen = 0.0, 0
    for xb, yb in loader:
        # TODO: the gradients of the previous step are still in .grad here
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)  # a float per step: no graph kept alive, weighted by batch size
        seen += len(xb)
    return total / seen


# %% tags=["check"]
# 1. The mechanism: with lr=0 the weights never move, so the gradient of the last batch is easy to recompute.
torch.manual_seed(2)
linear = nn.Linear(N_FEATURES, N_CLASSES)
three_batches = DataLoader(TensorDataset(x_train[:96], y_train[:96]), batch_size=32)
train_one_epoch(linear, three_batches, loss_fn, torch.optim.SGD(linear.parameters(), lr=0.0))
expected = torch.autograd.grad(loss_fn(linear(x_train[64:96]), y_train[64:96]), list(linear.parameters()))
for name, p, g in zip(["weight", "bias"], linear.parameters(), expected, strict=True):
    assert p.grad is None or torch.allclose(p.grad, g, atol=1e-6), (
        f"after an epoch of 3 batches, linear.{name}.grad is not the last batch's gradient but a sum of several: "
        "is .grad cleared before every backward()?"
    )

# 2. The effect: with clean gradients the same SGD settings train.
torch.manual_seed(1)
model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for _ in range(6):
    train_one_epoch(model, train_loader, loss_fn, optimizer)
final = train_set_loss(model)
assert final < 0.3, (
    f"after 6 epochs the training loss is {final:.3f}. Far above ln(4) = 1.386: gradients pile up, call "
    "optimizer.zero_grad() once per step. Stuck near 1.386: zero_grad() runs between backward() and step()"
)
print(f"training loss after 6 epochs: {final:.4f}")


# %% tags=["solution"]
def train_one_epoch(model, loader, loss_fn, optimizer) -> float:
    model.train()  # evaluate() switches to eval mode, so every epoch switches back
    total, seen = 0.0, 0
    for xb, yb in loader:
        # backward() accumulates into .grad, so clear the previous step's gradients first. Anywhere before
        # backward() or right after step() is fine; between backward() and step() it would wipe them.
        # Since 2.0 it sets .grad to None by default (set_to_none=True), and step() skips a None grad.
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)  # a float per step: no graph kept alive, weighted by batch size
        seen += len(xb)
    return total / seen


# %% [markdown]
# ## Exercise 3 · Validation numbers that change on every call
#
# The teammate's `evaluate` runs the model exactly as in training. Dropout is still active, so two
# calls on the same weights give different losses. BatchNorm is still in training mode, so every
# validation pass normalises with the batch's own statistics and *updates the running statistics with
# validation data*: evaluating changes the model. And autograd records a graph for every batch that
# nobody will ever call `backward()` on.
#
# Fix `evaluate`. The check asserts that two calls return identical numbers, that the model's
# `state_dict()` is bit-for-bit the same before and after, and that no output of the model carries a
# graph (`requires_grad` is `False`).
#
# Hint: two separate switches, and neither one does the other's job.


# %% tags=["exercise"]
def evaluate(model, loader, loss_fn) -> tuple[float, float]:
    # TODO: this runs the model exactly as in training
    total, correct, seen = 0.0, 0, 0
    for xb, yb in loader:
        logits = model(xb)
        total += loss_fn(logits, yb).item() * len(xb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += len(xb)
    return total / seen, correct / seen


# %% tags=["check"]
torch.manual_seed(1)
model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for _ in range(3):
    train_one_epoch(model, train_loader, loss_fn, optimizer)
before = {key: value.clone() for key, value in model.state_dict().items()}
outputs = []
hook = model.register_forward_hook(lambda module, args, output: outputs.append(output))
first, second = evaluate(model, val_loader, loss_fn), evaluate(model, val_loader, loss_fn)
hook.remove()
assert first == second, (
    f"two validation passes on the same weights gave {first} and {second}: is Dropout still active? "
    "torch.no_grad() does not switch it off, model.eval() does"
)
changed = [key for key, value in model.state_dict().items() if not torch.equal(value, before[key])]
assert not changed, f"evaluate() changed the model: {changed} (BatchNorm in training mode updates its running stats)"
assert not any(output.requires_grad for output in outputs), (
    "evaluate() recorded an autograd graph for every batch: wrap it in torch.inference_mode() or torch.no_grad()"
)
print(f"validation loss {first[0]:.4f}, accuracy {first[1]:.3f}, twice in a row")


# %% tags=["solution"]
@torch.inference_mode()  # no graph, no saved activations; torch.no_grad() works too
def evaluate(model, loader, loss_fn) -> tuple[float, float]:
    model.eval()  # Dropout off, BatchNorm uses (and leaves alone) its running statistics
    total, correct, seen = 0.0, 0, 0
    for xb, yb in loader:
        logits = model(xb)
        total += loss_fn(logits, yb).item() * len(xb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += len(xb)
    return total / seen, correct / seen


# %% [markdown]
# ## What to say in the interview
#
# - **"The model returns logits."** `CrossEntropyLoss` is `log_softmax` followed by `NLLLoss`. A softmax
#   in the model is applied twice: training still runs, but the loss has a floor above zero and the
#   gradients of confident mistakes nearly vanish. Softmax belongs in inference code, after the loss.
# - **"`backward()` accumulates."** That is why `zero_grad()` exists and why gradient accumulation costs
#   nothing. The lore says a missing `zero_grad` makes the loss flat: it makes training erratic (here,
#   with momentum, explosive), while a `zero_grad` *between* `backward()` and `step()` is what makes it
#   flat. Since PyTorch 2.0 it sets `.grad` to `None`, not zeros.
# - **"`eval()` and `no_grad` are two different switches."** `model.eval()` changes how Dropout and
#   BatchNorm behave; `torch.inference_mode()` or `no_grad()` stops autograd from recording. Validation
#   needs both, and `train()` has to come back at the start of every epoch.
# - **"Validation must not change the model."** BatchNorm in training mode updates its running
#   statistics on every forward pass, so an evaluation without `eval()` quietly trains the statistics
#   on validation data.
# - **"Prove the fix with the effect."** A loss below a threshold the bug can't reach, a gradient equal
#   to a fresh reference, two identical validation passes: checks like these catch the silent bugs that
#   a loop which merely runs hides.
