# %% [markdown]
# # Lab · Fine-tune a pretrained CNN without wrecking it
#
# A teammate hands you a pretrained image model and a small labelled data set from a new domain: three
# classes, brighter and higher-contrast images than the ones the model was trained on. Your job is to
# fine-tune it. The code you inherit runs, the loss goes down, and yet each function quietly damages
# the pretrained model: a "frozen" backbone whose BatchNorm statistics drift, weight decay that shrinks
# the normalization layers' scales, and a prediction helper that normalizes each image by the batch it
# came in and feeds the validation images into the running statistics.
#
# You practise three habits of transfer learning: freeze a backbone so that it really stays fixed,
# build the optimizer's parameter groups, and run inference in the middle of training without
# disturbing it. Allow about 25 minutes. The lab draws on Module 5 · Normalization layers, Q66 (train
# vs eval, what `eval()` does not freeze), Module 5 · Transfer learning, Q71–Q72 (linear probe, what
# freezing does to BatchNorm, which parameters go to the optimizer), Module 5 · Regularization, Q69
# (weight decay), and Module 3 · Optimizers, Q49 (parameter groups).
#
# No weights are downloaded. The "pretrained" model is a small, randomly initialized CNN whose
# BatchNorm layers have gathered statistics on synthetic source images, which is enough to make every
# effect visible. Everything runs on a CPU in a few seconds. Colab, or any install with torch >= 2.6,
# has everything: there is nothing to install.

# %%
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class SmallCNN(nn.Module):
    """A ResNet in miniature: two conv (no bias) -> BatchNorm -> ReLU blocks, global pooling, a linear head."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


# The "pretrained" checkpoint: random weights, plus BatchNorm statistics gathered in training mode on
# 30 batches of source-domain images. CHECKPOINT plays the part of the downloaded weights file.
source = SmallCNN()
with torch.no_grad():
    for _ in range(30):
        source(torch.randn(32, 3, 16, 16))
CHECKPOINT = copy.deepcopy(source.state_dict())


def load_pretrained():
    """A fresh copy of the pretrained model, in training mode like any newly built nn.Module."""
    model = SmallCNN()
    model.load_state_dict(CHECKPOINT)
    return model


# The new task: 3 classes, images from another domain (brighter, more contrast); class k tints channel k.
labels = torch.arange(96) % 3
images = 1.5 * torch.randn(96, 3, 16, 16) + 0.5 + F.one_hot(labels, 3).float()[:, :, None, None]
batches = list(zip(images.split(16), labels.split(16), strict=True))
print(len(batches), "batches of", tuple(images[:16].shape))

# %% [markdown]
# ## Exercise 1 · A linear probe whose backbone really stays frozen
#
# `linear_probe` freezes the backbone with `requires_grad_(False)`, swaps in a 3-class head, and trains
# only the head for a few epochs, calling `model.train()` at the start of each epoch as any training
# loop does. The loss falls, so it looks right. But after training, the backbone is no longer the
# pretrained one: its BatchNorm layers have been normalizing with the new domain's batch statistics and
# updating their running mean and variance at every step.
#
# Fix the function so that training leaves every entry of the backbone's `state_dict` (weights,
# running statistics and `num_batches_tracked`) exactly equal to the checkpoint. The check trains a
# fresh pretrained model with your function, then compares the backbone tensor by tensor, makes sure
# the backbone received no gradient, and that the probe still learns and classifies the training
# images in eval mode. Hint: the running statistics are buffers, not parameters. What stops a
# BatchNorm layer from updating them, and which call in the loop undoes it?


# %% tags=["exercise"]
def linear_probe(model, batches, epochs=5, lr=0.5):
    """Train a new 3-class head on top of the frozen, pretrained backbone; return the losses."""
    model.backbone.requires_grad_(False)  # freeze first ...
    model.head = nn.Linear(model.head.in_features, 3)  # ... then replace the head ...
    optimizer = torch.optim.SGD(model.head.parameters(), lr=lr)  # ... and build the optimizer last
    losses = []
    for _ in range(epochs):
        model.train()
        # TODO: the backbone gets no gradient, but is it really frozen in training mode?
        for x, y in batches:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses


# %% tags=["check"]
probe = load_pretrained()
losses = linear_probe(probe, batches)
for name, value in probe.backbone.state_dict().items():
    assert torch.equal(value, CHECKPOINT[f"backbone.{name}"]), (
        f"backbone.{name} changed during the linear probe. requires_grad_(False) stops gradients, but "
        "BatchNorm's running statistics are buffers that every training-mode forward pass updates, even "
        "under no_grad(). Put the backbone in eval mode, and do it again after every model.train()."
    )
assert all(p.grad is None for p in probe.backbone.parameters()), "the frozen backbone must get no gradient"
assert probe.head.out_features == 3, "the probe trains a new 3-class head"
assert sum(losses[-6:]) < 0.7 * sum(losses[:6]), "the loss did not fall: does the head still train?"
probe.eval()
with torch.no_grad():
    accuracy = (probe(images).argmax(dim=1) == labels).float().mean().item()
assert accuracy > 0.9, f"eval-mode accuracy on the training images is only {accuracy:.2f}: the probe learned nothing"
print(f"backbone unchanged, loss {losses[0]:.3f} -> {losses[-1]:.3f}, accuracy {accuracy:.2f}")


# %% tags=["solution"]
def linear_probe(model, batches, epochs=5, lr=0.5):
    """Train a new 3-class head on top of the frozen, pretrained backbone; return the losses."""
    model.backbone.requires_grad_(False)  # no gradients, so the optimizer can't move the backbone
    model.head = nn.Linear(model.head.in_features, 3)
    optimizer = torch.optim.SGD(model.head.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        model.train()  # sets every submodule to training mode, the backbone's BatchNorm layers included ...
        model.backbone.eval()  # ... so switch the backbone back: running statistics are used, never updated
        for x, y in batches:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses


# A linear probe could also train with the whole model in eval() (this model has no Dropout). For a
# reusable model, override train() so that the backbone's BatchNorm layers stay in eval mode (Q66).

# %% [markdown]
# ## Exercise 2 · No weight decay on BatchNorm scales and biases
#
# Now a partial fine-tuning run: the stem convolution stays frozen, and the rest of the backbone trains
# together with a new head, under AdamW. `make_optimizer` passes `model.parameters()` to a single group
# with weight decay. That decays BatchNorm's γ and β and every bias towards zero. They set the scale and
# offset of each channel rather than the model's capacity, so decaying them only erodes what the
# pretrained model learned. It also hands the optimizer the frozen stem.
#
# Build two parameter groups from the parameters that require grad: the weight matrices and conv
# kernels (two or more dimensions) with `weight_decay`, and the 1-D tensors (BatchNorm weights and
# biases, the head's bias) with `weight_decay=0.0`. Keep one learning rate, `lr`, for both. The check
# builds your optimizer for a partially frozen model, checks that every trainable parameter is in
# exactly one group and no frozen one is, then takes one AdamW step with all gradients set to zero:
# only decay can move anything then. The 1-D parameters must not move at all, and the others must
# shrink by exactly `1 - lr · weight_decay`. Hint: `p.ndim`.


# %% tags=["exercise"]
def make_optimizer(model, lr=1e-3, weight_decay=0.05):
    """AdamW over the parameters that train, without weight decay on biases and normalization weights."""
    # TODO: two parameter groups, built from the parameters that require grad
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


# %% tags=["check"]
model = load_pretrained()
model.head = nn.Linear(16, 3)
model.backbone[0].requires_grad_(False)  # partial fine-tuning: the stem stays frozen
lr, weight_decay = 0.1, 0.1  # large, so that one step shows the decay clearly
optimizer = make_optimizer(model, lr=lr, weight_decay=weight_decay)

in_optimizer = [p for group in optimizer.param_groups for p in group["params"]]
trainable = [p for p in model.parameters() if p.requires_grad]
assert all(p.requires_grad for p in in_optimizer), (
    "a frozen parameter is in the optimizer: build the groups from the parameters that require grad"
)
assert len(in_optimizer) == len(trainable) and {id(p) for p in in_optimizer} == {id(p) for p in trainable}, (
    "every trainable parameter must be in exactly one group"
)

before = {name: p.detach().clone() for name, p in model.named_parameters()}
for p in trainable:
    p.grad = torch.zeros_like(p)  # a zero gradient: whatever moves now, weight decay moved it
optimizer.step()
for name, p in model.named_parameters():
    if not p.requires_grad:
        assert torch.equal(p, before[name]), f"frozen {name} moved"
    elif p.ndim < 2:
        assert torch.equal(p, before[name]), (
            f"{name} shrank with a zero gradient: weight decay reached a 1-D parameter (a BatchNorm scale or "
            "shift, or a bias). Put the 1-D parameters in a group with weight_decay=0.0."
        )
    else:
        torch.testing.assert_close(
            p.detach(),
            before[name] * (1 - lr * weight_decay),
            msg=f"{name} should shrink by exactly 1 - lr * weight_decay: keep the decay on weights, with lr for all",
        )
print("groups (tensors, weight_decay):", [(len(g["params"]), g["weight_decay"]) for g in optimizer.param_groups])


# %% tags=["solution"]
def make_optimizer(model, lr=1e-3, weight_decay=0.05):
    """AdamW over the parameters that train, without weight decay on biases and normalization weights."""
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue  # frozen parameters stay out of the optimizer
        (no_decay if p.ndim < 2 else decay).append(p)  # biases, BatchNorm and LayerNorm weights are 1-D
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr)  # the keyword arguments are the defaults of every group


# %% [markdown]
# ## Exercise 3 · Predict in the middle of training without disturbing it
#
# The training script calls `predict` for a validation pass every few hundred steps, and the demo page
# calls it on one image at a time. It runs under `torch.no_grad()`, so it "must be inference". But
# `no_grad()` only stops autograd from recording. The model is still in training mode, so its
# BatchNorm layers normalize each input with the statistics of the batch it came in: a single image
# gets a different prediction alone than in a batch (with `BatchNorm2d` and one image, each channel is
# normalized by that image's own pixels, which is InstanceNorm). And every call pushes the validation
# images into the running statistics.
#
# Make `predict` use the running statistics, update nothing, and leave the model in the mode it found
# it in: the training loop carries on right after validation, and a model that was already in eval
# mode stays there. The check calls your `predict` on a model in training mode and on one in eval mode.
# It requires that one image alone gets the same probabilities as in a batch, that they match an
# eval-mode copy of the model, that no buffer changed, and that each model ends in its original mode.
# Hint: `model.training` tells you the mode, and `model.train(mode)` sets it.


# %% tags=["exercise"]
@torch.no_grad()
def predict(model, x):
    """Class probabilities for a batch x, callable in the middle of training."""
    # TODO: no_grad() alone doesn't switch BatchNorm to its running statistics
    return model(x).softmax(dim=-1)


# %% tags=["check"]
model = load_pretrained()
model.head = nn.Linear(16, 3)
model.train()  # where a training loop leaves it
reference = copy.deepcopy(model).eval()(images[:8]).softmax(dim=-1).detach()
batch_probs = predict(model, images[:8])
one_probs = predict(model, images[:1])
torch.testing.assert_close(
    one_probs,
    batch_probs[:1],
    msg="one image gets different probabilities alone than in a batch: in training mode, BatchNorm "
    "normalizes with the statistics of the batch, so call model.eval() inside predict",
)
torch.testing.assert_close(batch_probs, reference, msg="predict must match the model in eval mode")
assert not batch_probs.requires_grad, "predict records no graph"
for name, value in model.named_buffers():
    assert torch.equal(value, CHECKPOINT[name]), f"predict changed {name}: validation data leaked into the model"
assert model.training and all(m.training for m in model.modules()), (
    "predict left the model in eval mode: the training loop continues after validation, so restore "
    "the mode you found with model.train(was_training)"
)
model.eval()
predict(model, images[:4])
assert not any(m.training for m in model.modules()), "a model that was in eval mode must stay in eval mode"
print("predict is batch-independent, changes nothing, and restores the mode")


# %% tags=["solution"]
@torch.no_grad()  # no graph: no memory spent on activations for backward
def predict(model, x):
    """Class probabilities for a batch x, callable in the middle of training."""
    was_training = model.training
    model.eval()  # BatchNorm: running statistics, no updates; Dropout: off
    try:
        return model(x).softmax(dim=-1)
    finally:
        model.train(was_training)  # give the training loop back the model it had, even if forward raised


# %% [markdown]
# ## What to say in the interview
#
# - "Freezing" has two parts. `requires_grad_(False)` stops gradients, so the optimizer can't change
#   the weights. BatchNorm's running statistics are buffers that every training-mode forward pass
#   updates, under `no_grad()` too, so a frozen backbone also needs eval mode, re-applied after each
#   `model.train()` (or a `train()` override, or `FrozenBatchNorm2d`).
# - `eval()` and `no_grad()` do different jobs: `eval()` switches BatchNorm to its running statistics
#   and turns Dropout off; `no_grad()` stops recording the graph. Inference wants both, and a helper
#   called during training restores the mode it found.
# - BatchNorm in training mode makes a sample's output depend on its batch. One image with
#   `BatchNorm2d` silently becomes InstanceNorm; one sample with `BatchNorm1d` raises "Expected more
#   than 1 value per channel when training". Re-estimating the statistics on the new domain (AdaBN)
#   can be a deliberate choice, but then it is a choice, not an accident.
# - Parameter groups: no weight decay on biases and normalization weights (the `ndim < 2` rule),
#   only trainable parameters, built after the head swap. With AdamW the decay is decoupled, so a zero
#   gradient still shrinks every decayed weight by `1 - lr · λ`, which is how the check proved it.
# - Freezing is a strategy, not a rule: a linear probe for little data close to the source domain,
#   partial or full fine-tuning with smaller learning rates for the pretrained layers when there is
#   more data or a larger domain shift.
