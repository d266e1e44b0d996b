"""Train vs eval preprocessing, the weights' own transforms, the random_split transform trap, and TTA."""

# --8<-- [start:train_vs_eval]
import torch
from torchvision.transforms import v2

normalize = [
    v2.ToDtype(torch.float32, scale=True),
    v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
]
# random
train_tf = v2.Compose(
    [v2.RandomResizedCrop(224), v2.RandomHorizontalFlip(), *normalize]
)
# deterministic, same statistics
eval_tf = v2.Compose([v2.Resize(256), v2.CenterCrop(224), *normalize])

image = torch.randint(0, 256, (3, 300, 400), dtype=torch.uint8)
print(
    torch.equal(eval_tf(image), eval_tf(image)),
    torch.equal(train_tf(image), train_tf(image)),
)
# > True False
# --8<-- [end:train_vs_eval]

first_train_tf, first_eval_tf, first_image = train_tf, eval_tf, image

# --8<-- [start:weights_transforms]
from torchvision.models import ResNet18_Weights

# an enum entry: nothing is downloaded until you build the model with it
weights = ResNet18_Weights.DEFAULT
# the exact eval preprocessing the weights were trained and scored with
print(weights.transforms())
# > ImageClassification(
# >     crop_size=[224]
# >     resize_size=[256]
# >     mean=[0.485, 0.456, 0.406]
# >     std=[0.229, 0.224, 0.225]
# >     interpolation=InterpolationMode.BILINEAR
# > )
# --8<-- [end:weights_transforms]

# --8<-- [start:split_trap]
import torch
from torch.utils.data import Subset, random_split
from torchvision.datasets import FakeData
from torchvision.transforms import v2

train_tf = v2.Compose(
    [
        v2.ToImage(),
        v2.RandomHorizontalFlip(),
        v2.ToDtype(torch.float32, scale=True),
    ]
)
eval_tf = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])

full = FakeData(size=10, image_size=(3, 8, 8))
train_set, val_set = random_split(
    full, [8, 2], generator=torch.Generator().manual_seed(0)
)
# the bug: both Subsets share ONE dataset object
train_set.dataset.transform = train_tf
print(val_set.dataset.transform is train_tf)  # validation is now augmented too
# > True

# The fix: two dataset objects with their own transforms, indexed by the same
# split
train_set = Subset(
    FakeData(size=10, image_size=(3, 8, 8), transform=train_tf),
    train_set.indices,
)
val_set = Subset(
    FakeData(size=10, image_size=(3, 8, 8), transform=eval_tf), val_set.indices
)
print(val_set.dataset.transform is eval_tf)
# > True
# --8<-- [end:split_trap]

# --8<-- [start:tta]
import torch
from torch import nn
from torchvision.transforms import v2

model = nn.Sequential(
    nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2)
).eval()
images = torch.rand(5, 3, 16, 16)  # a batch, already through eval preprocessing

with torch.inference_mode():
    # deterministic views, not random augmentation
    views = [images, v2.functional.horizontal_flip(images)]
    # average the predictions
    probs = torch.stack([model(view).softmax(dim=1) for view in views]).mean(
        dim=0
    )
print(tuple(probs.shape), torch.allclose(probs.sum(dim=1), torch.ones(5)))
# > (5, 2) True
# --8<-- [end:tta]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torchvision.datasets import FakeData

    # Both pipelines produce the model's input size; only the eval one is a function of the image alone.
    for tf in (first_train_tf, first_eval_tf):
        out = tf(first_image)
        assert out.shape == (3, 224, 224) and out.dtype == torch.float32
    # The weights' preset: it accepts tensors and PIL images and produces a normalized 3x224x224 float tensor.
    preset = weights.transforms()
    out = preset(torch.randint(0, 256, (3, 300, 400), dtype=torch.uint8))
    assert out.shape == (3, 224, 224) and out.dtype == torch.float32
    pil, _ = FakeData(size=1, image_size=(3, 300, 400))[0]
    assert preset(pil).shape == (3, 224, 224)
    assert weights.url.endswith(".pth") and len(weights.meta["categories"]) == 1000  # metadata, no download

    # The trap, proven on samples: after setting the transform through train_set, a validation sample is
    # flipped at random (two reads differ); with the fix it is the plain conversion, every time.
    full_again = FakeData(size=10, image_size=(3, 8, 8))
    tr, va = random_split(full_again, [8, 2], generator=torch.Generator().manual_seed(0))
    tr.dataset.transform = train_tf
    reads = [va[0][0] for _ in range(20)]
    assert any(not torch.equal(reads[0], r) for r in reads)
    assert all(torch.equal(val_set[0][0], val_set[0][0]) for _ in range(5))
    assert sorted(train_set.indices + val_set.indices) == list(range(10))

    # TTA is the mean of the per-view softmaxes, deterministic in eval mode, and no graph was recorded.
    with torch.inference_mode():
        again = (model(images).softmax(1) + model(images.flip(-1)).softmax(1)) / 2
    torch.testing.assert_close(probs, again)
    assert not probs.requires_grad and probs.is_inference()


if __name__ == "__main__":
    _check()
