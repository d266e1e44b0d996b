"""Adapting a pretrained model: a 1-channel stem from the RGB filters, a feature extractor, and a LoRA layer."""

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

# --8<-- [start:input_channels]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18

model = resnet18(weights=ResNet18_Weights.DEFAULT)
# Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
rgb = model.conv1
# grayscale input
model.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
with torch.no_grad():
    # keep the pretrained filters
    model.conv1.weight.copy_(rgb.weight.sum(dim=1, keepdim=True))

gray = torch.rand(2, 1, 64, 64)
# same as gray copied to RGB
print(
    torch.allclose(
        model.conv1(gray), rgb(gray.expand(-1, 3, -1, -1)), atol=1e-5
    )
)
# > True
print(model(gray).shape)
# > torch.Size([2, 1000])
# --8<-- [end:input_channels]

stem_model, stem_rgb = model, rgb

# --8<-- [start:features]
import torch
from torch import nn
from torchvision.models import ResNet18_Weights, resnet18
from torchvision.models.feature_extraction import create_feature_extractor

model = resnet18(weights=ResNet18_Weights.DEFAULT).eval()
x = torch.randn(2, 3, 64, 64)
# multi-scale maps
backbone = create_feature_extractor(
    model, return_nodes={"layer3": "c4", "layer4": "c5"}
)
print({name: tuple(t.shape) for name, t in backbone(x).items()})
# > {'c4': (2, 256, 4, 4), 'c5': (2, 512, 2, 2)}

model.fc = nn.Identity()  # or drop the classifier: pooled 512-d embeddings
print(model(x).shape)
# > torch.Size([2, 512])
# --8<-- [end:features]

features_model, features_backbone, features_x = model, backbone, x

# --8<-- [start:lora]
import torch
from torch import nn


class LoRALinear(nn.Module):
    """y = W x + b + (alpha / r) * B A x; W, b frozen, only A and B train."""

    def __init__(
        self, base: nn.Linear, rank: int = 4, alpha: float = 8.0
    ) -> None:
        super().__init__()
        self.base = base.requires_grad_(False)
        self.A = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        # zero: starts as the base layer
        self.B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.scale * (x @ self.A.T @ self.B.T)


base = nn.Linear(512, 512)
layer = LoRALinear(base)
x = torch.randn(8, 512)
# before training: exactly the pretrained layer
print(torch.equal(layer(x), base(x)))
# > True
print(
    sum(p.numel() for p in layer.parameters() if p.requires_grad),
    "trainable vs",
    base.weight.numel(),
)
# > 4096 trainable vs 262144

optimizer = torch.optim.AdamW([layer.A, layer.B], lr=1e-2)
for _ in range(3):
    optimizer.zero_grad()
    layer(x).pow(2).mean().backward()
    optimizer.step()
merged = nn.Linear(512, 512)
# fold the update into one weight: no extra cost at inference
with torch.no_grad():
    merged.weight.copy_(base.weight + layer.scale * layer.B @ layer.A)
    merged.bias.copy_(base.bias)
print(torch.allclose(merged(x), layer(x), atol=1e-5))
# > True
# --8<-- [end:lora]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    saved = torch.load(_checkpoint, weights_only=True)

    # The new stem: shape (64, 1, 7, 7), the per-filter sum of the checkpoint's RGB filters; the rest unchanged.
    assert stem_model.conv1.weight.shape == (
        64,
        1,
        7,
        7,
    ) and stem_rgb.weight.shape == (64, 3, 7, 7)
    torch.testing.assert_close(
        stem_model.conv1.weight, saved["conv1.weight"].sum(dim=1, keepdim=True)
    )
    assert torch.equal(
        stem_model.layer1[0].conv1.weight, saved["layer1.0.conv1.weight"]
    )

    # The head has another name in other families: classifier[-1] in EfficientNet and MobileNetV3.
    from torchvision.models import efficientnet_b0, mobilenet_v3_small

    for other in (efficientnet_b0(), mobilenet_v3_small()):
        assert (
            isinstance(other.classifier[-1], nn.Linear)
            and other.classifier[-1].out_features == 1000
        )
    # Feature extraction: the extractor's maps are the model's own intermediate outputs.
    with torch.no_grad():
        maps = features_backbone(features_x)
        ref = resnet18(weights=ResNet18_Weights.DEFAULT).eval()
        stem = ref.maxpool(ref.relu(ref.bn1(ref.conv1(features_x))))
        c4 = ref.layer3(ref.layer2(ref.layer1(stem)))
        torch.testing.assert_close(maps["c4"], c4)
        torch.testing.assert_close(maps["c5"], ref.layer4(c4))
        torch.testing.assert_close(
            features_model(features_x),
            torch.flatten(ref.avgpool(ref.layer4(c4)), 1),
        )

    # LoRA: the base stayed frozen and unchanged; only A and B trained; rank-4 update; merge is exact.
    assert not base.weight.requires_grad and base.weight.grad is None
    assert {n for n, p in layer.named_parameters() if p.requires_grad} == {
        "A",
        "B",
    }
    assert torch.linalg.matrix_rank(layer.B @ layer.A).item() <= 4
    assert layer.B.abs().sum() > 0  # B moved away from zero
    # At initialization only B gets a gradient: dL/dA goes through B, which is zero.
    fresh = LoRALinear(nn.Linear(512, 512))
    fresh(x).pow(2).mean().backward()
    assert (
        torch.equal(fresh.A.grad, torch.zeros_like(fresh.A))
        and fresh.B.grad.abs().sum() > 0
    )
    assert sum(
        p.numel() for p in layer.parameters() if p.requires_grad
    ) == 4 * (512 + 512)


if __name__ == "__main__":
    _check()
