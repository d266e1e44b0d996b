"""Transfer learning with the weights API: load, preprocess, freeze, new head, optimizer over what trains."""

# ---- hidden set-up, never shown: pretrained weights without a download ----
# torchvision loads ResNet18_Weights.DEFAULT from $TORCH_HOME/hub/checkpoints/ when the file is there, and checks a
# hash only after downloading. The site runs offline, so a randomly initialized checkpoint stands in for the ImageNet
# one: the tests provide it (tests/plugin/offline_weights.py); run on its own, this file makes one in a temporary
# TORCH_HOME (never in your real one, where a random file would shadow the real download).
import os
import tempfile
from pathlib import Path

import torch
from torchvision.models import ResNet18_Weights, resnet18

_name = Path(ResNet18_Weights.DEFAULT.url).name
_home = os.environ.get("TORCH_HOME")
_found = (
    _home is not None and Path(_home, "hub", "checkpoints", _name).is_file()
)
_temporary = (
    None if _found else tempfile.TemporaryDirectory()
)  # deleted when the script exits
os.environ["TORCH_HOME"] = _home if _found else _temporary.name
_checkpoint = Path(os.environ["TORCH_HOME"], "hub", "checkpoints", _name)
_checkpoint.parent.mkdir(parents=True, exist_ok=True)
_found or torch.save(resnet18(weights=None).state_dict(), _checkpoint)

# --8<-- [start:weights_api]
from torchvision.models import ResNet18_Weights, resnet18

# the best weights torchvision has for this model
weights = ResNet18_Weights.DEFAULT
# downloaded once into $TORCH_HOME/hub/checkpoints, then loaded from there
model = resnet18(weights=weights)
# the preprocessing those weights were trained with
preprocess = weights.transforms()
print(weights)
# > ResNet18_Weights.IMAGENET1K_V1
print(
    preprocess.resize_size,
    preprocess.crop_size,
    preprocess.mean,
    preprocess.std,
)
# > [256] [224] [0.485, 0.456, 0.406] [0.229, 0.224, 0.225]
print(model.fc, len(weights.meta["categories"]))
# > Linear(in_features=512, out_features=1000, bias=True) 1000
# --8<-- [end:weights_api]

api_model, api_weights = model, weights

# --8<-- [start:linear_probe]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
for param in model.parameters():
    param.requires_grad = False  # 1. freeze the pretrained backbone
# 2. then a new head: its parameters require grad
model.fc = nn.Linear(model.fc.in_features, 5)
trainable = [p for p in model.parameters() if p.requires_grad]
# 3. then the optimizer, over what trains
optimizer = torch.optim.AdamW(trainable, lr=1e-3)
print(
    sum(p.numel() for p in trainable),
    "of",
    sum(p.numel() for p in model.parameters()),
)
# > 2565 of 11179077

# stand-in for a preprocessed batch
x, y = torch.randn(4, 3, 64, 64), torch.tensor([0, 1, 2, 3])
# a linear probe can train in eval mode: frozen BatchNorm keeps its ImageNet
# stats (Q72)
model.eval()
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
optimizer.step()
print(model.fc.weight.grad is not None, model.conv1.weight.grad)
# > True None
# --8<-- [end:linear_probe]

probe_model, probe_optimizer = model, optimizer

# --8<-- [start:partial]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
model.fc = nn.Linear(model.fc.in_features, 5)
model.requires_grad_(False)
# partial fine-tuning: unfreeze the last stage and the head
for block in (model.layer4, model.fc):
    block.requires_grad_(True)
optimizer = torch.optim.AdamW(
    [
        # pretrained layers: small steps
        {"params": model.layer4.parameters(), "lr": 1e-4},
        # the new head: larger steps
        {"params": model.fc.parameters(), "lr": 1e-3},
    ],
    weight_decay=0.01,
)
print(
    [len(group["params"]) for group in optimizer.param_groups],
    [g["lr"] for g in optimizer.param_groups],
)
# > [15, 2] [0.0001, 0.001]
# --8<-- [end:partial]

partial_model, partial_optimizer = model, optimizer

# --8<-- [start:transforms]
import torch
from torchvision.models import ResNet18_Weights
from torchvision.transforms import v2

# resize 256, center crop 224, to float, normalize; accepts PIL or tensors
eval_tf = ResNet18_Weights.DEFAULT.transforms()
train_tf = v2.Compose(
    [
        v2.ToImage(),  # PIL image -> uint8 tensor (C, H, W)
        v2.RandomResizedCrop(224),  # augmentation: training data only
        v2.RandomHorizontalFlip(),
        v2.ToDtype(torch.float32, scale=True),  # uint8 [0, 255] -> [0, 1]
        # the statistics the weights expect
        v2.Normalize(mean=eval_tf.mean, std=eval_tf.std),
    ]
)
# what ImageFolder yields: a PIL image (a stand-in for a decoded photo)
pixels = torch.randint(0, 256, (3, 300, 400), dtype=torch.uint8)
image = v2.functional.to_pil_image(pixels)
print(train_tf(image).shape, train_tf(image).dtype)
# > torch.Size([3, 224, 224]) torch.float32
print(eval_tf(image).shape)
# > torch.Size([3, 224, 224])
print(
    torch.equal(eval_tf(image), eval_tf(image)),
    torch.equal(train_tf(image), train_tf(image)),
)
# > True False
# --8<-- [end:transforms]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The weights API: DEFAULT is an alias of IMAGENET1K_V1, and the model holds exactly the checkpoint's tensors.
    assert (
        ResNet18_Weights.DEFAULT is ResNet18_Weights.IMAGENET1K_V1
        and api_weights.meta["num_params"] == 11689512
    )
    assert {"categories", "num_params", "recipe"} <= set(api_weights.meta)
    saved = torch.load(_checkpoint, weights_only=True)
    assert all(
        torch.equal(saved[k], v) for k, v in api_model.state_dict().items()
    )
    assert Path(os.environ["TORCH_HOME"], "hub", "checkpoints", _name).is_file()

    # Linear probe: only the new head is trainable and got a gradient; the backbone got none and matches the checkpoint.
    assert (
        probe_model.fc.weight.requires_grad
        and probe_model.fc.weight.grad is not None
    )
    frozen = [
        p for n, p in probe_model.named_parameters() if not n.startswith("fc.")
    ]
    assert all(not p.requires_grad and p.grad is None for p in frozen)
    assert {
        id(p) for g in probe_optimizer.param_groups for p in g["params"]
    } == {id(p) for p in probe_model.fc.parameters()}
    state = probe_model.state_dict()
    assert all(
        torch.equal(saved[k], state[k])
        for k in saved
        if not k.startswith("fc.")
    )  # stats untouched (eval)
    assert sum(p.numel() for p in probe_model.fc.parameters()) == 512 * 5 + 5

    # Partial: layer4 + fc train, in two groups with their own lr; everything before layer4 is frozen.
    for name, p in partial_model.named_parameters():
        assert p.requires_grad == name.startswith(("layer4.", "fc.")), name
    assert sum(len(g["params"]) for g in partial_optimizer.param_groups) == sum(
        p.requires_grad for p in partial_model.parameters()
    )

    # Transforms: the input really is what ImageFolder yields, a PIL image.
    import pytest
    from PIL import Image

    assert isinstance(image, Image.Image)
    # Without ToImage() first, the same pipeline fails on it: ToDtype passes a
    # PIL image through untouched, and Normalize refuses it.
    no_to_image = v2.Compose(train_tf.transforms[1:])
    assert not any(isinstance(t, v2.ToImage) for t in no_to_image.transforms)
    with pytest.raises(TypeError, match="Normalize.. does not support PIL"):
        no_to_image(image)
    dtype_only = v2.ToDtype(torch.float32, scale=True)
    assert isinstance(dtype_only(image), Image.Image)
    # With ToImage() the output is a normalized float tensor, on PIL and on
    # tensor input alike (a uint8 tensor goes through ToImage unchanged).
    out_train = train_tf(image)
    assert isinstance(out_train, torch.Tensor)
    assert out_train.dtype == torch.float32 and out_train.shape == (3, 224, 224)
    assert out_train.min() < 0  # normalized, not [0, 1]
    assert train_tf(pixels).shape == (3, 224, 224)
    # The eval pipeline takes the PIL image and the tensor to the same result.
    torch.testing.assert_close(eval_tf(image), eval_tf(pixels), atol=0.05, rtol=0)

    # Transforms: the eval pipeline is deterministic and normalized with ImageNet statistics.
    out = eval_tf(image)
    assert out.dtype == torch.float32 and out.shape == (3, 224, 224)
    assert eval_tf.resize_size == [256] and eval_tf.crop_size == [224]


if __name__ == "__main__":
    _check()
