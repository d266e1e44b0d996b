"""torchvision.transforms.v2: the current API; ToImage + ToDtype(scale=True) replace ToTensor; joint transforms."""

# --8<-- [start:pipeline]
import torch
from torchvision.datasets import FakeData
from torchvision.transforms import v2

train_tf = v2.Compose(
    [
        # PIL image or ndarray -> tv_tensors.Image, uint8, (C, H, W)
        v2.ToImage(),
        v2.RandomResizedCrop(24),  # antialias=True is already the default
        v2.RandomHorizontalFlip(),
        # uint8 [0, 255] -> float32 [0, 1]
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]
)
# generated images
dataset = FakeData(
    size=8, image_size=(3, 32, 32), num_classes=10, transform=train_tf
)
image, label = dataset[0]
print(
    type(image).__name__, image.dtype, tuple(image.shape), type(label).__name__
)
# > Image torch.float32 (3, 24, 24) int
# --8<-- [end:pipeline]

# --8<-- [start:to_tensor]
import torch
from torchvision import transforms
from torchvision.datasets import FakeData
from torchvision.transforms import v2

pil_image, _ = FakeData(size=1, image_size=(3, 8, 8))[0]
# v1: still supported, no warning in torchvision 0.29
legacy = transforms.ToTensor()(pil_image)
modern = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])(
    pil_image
)
print(torch.allclose(legacy, modern), type(modern).__name__, modern.dtype)
# > True Image torch.float32
# scale defaults to False
unscaled = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32)])(pil_image)
# unscaled: still 0-255, a silent bug
print(modern.max().item() <= 1, unscaled.max().item() > 1)
# > True True
# --8<-- [end:to_tensor]

# --8<-- [start:joint]
import torch
from torchvision import tv_tensors
from torchvision.transforms import v2

image = tv_tensors.Image(torch.zeros(3, 8, 16, dtype=torch.uint8))
boxes = tv_tensors.BoundingBoxes(
    [[0, 0, 4, 4]], format="XYXY", canvas_size=(8, 16)
)
mask = tv_tensors.Mask(torch.zeros(8, 16, dtype=torch.uint8))
mask[0:4, 0:4] = 1  # the object covers the top-left corner
# any nesting; non-tensors pass through
sample = {"image": image, "boxes": boxes, "mask": mask, "label": 3}

# one random decision, applied to every tv_tensor
out = v2.RandomHorizontalFlip(p=1.0)(sample)
print(out["boxes"].tolist(), out["mask"][0].tolist(), out["label"])
# > [[12, 0, 16, 4]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1] 3
# boxes as a plain tensor...
plain = v2.RandomHorizontalFlip(p=1.0)(image, torch.tensor([[0, 0, 4, 4]]))
print(plain[1].tolist())  # ...are passed through untouched
# > [[0, 0, 4, 4]]
# --8<-- [end:joint]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    import pytest
    from torchvision import tv_tensors

    # The pipeline: a tv_tensors.Image (a Tensor subclass) of the crop size, normalized float32.
    assert isinstance(image, tv_tensors.Image) and isinstance(image, torch.Tensor)
    assert v2.RandomResizedCrop(24).antialias is True and v2.Resize(24).antialias is True
    # The two augmentations draw from torch's global RNG (which DataLoader workers reseed per worker):
    # the same index gives a different crop, and a reseed replays it.
    torch.manual_seed(0)
    first = dataset[0][0]
    torch.manual_seed(0)
    assert torch.equal(first, dataset[0][0])
    assert not torch.equal(first, dataset[0][0])

    # Only v2.ToTensor warns: a UserWarning at construction, naming the replacement.
    message = (
        r"The transform `ToTensor\(\)` is deprecated and will be removed in a future release\. Instead, please use "
        r"`v2\.Compose\(\[v2\.ToImage\(\), v2\.ToDtype\(torch\.float32, scale=True\)\]\)`"
    )
    with pytest.warns(UserWarning, match=message):
        to_tensor = v2.ToTensor()
    torch.testing.assert_close(to_tensor(pil_image), legacy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning at all would fail here
        transforms.ToTensor()(pil_image)
        v2.ToImage()(pil_image)
    # The replacement is exact up to float rounding (ToTensor divides by 255, ToDtype multiplies by 1/255).
    torch.testing.assert_close(legacy, modern.as_subclass(torch.Tensor), rtol=0, atol=1e-7)
    assert isinstance(modern, tv_tensors.Image) and type(legacy) is torch.Tensor
    assert unscaled.max() == v2.ToImage()(pil_image).max() and unscaled.dtype == torch.float32

    # Joint transforms: box, mask and image flipped together; the plain tensor untouched.
    assert isinstance(out["boxes"], tv_tensors.BoundingBoxes) and out["boxes"].canvas_size == (8, 16)
    assert out["mask"][0:4, 12:16].all() and out["mask"].sum() == 16
    assert torch.equal(plain[1], torch.tensor([[0, 0, 4, 4]]))
    # A batch (N, C, H, W) is one input: a random transform draws one decision for all of it.
    batch = torch.rand(2, 3, 4, 4)
    for _ in range(10):
        flipped = v2.RandomHorizontalFlip(p=0.5)(batch)
        assert torch.equal(flipped, batch) or torch.equal(flipped, batch.flip(-1))
    # The public hooks of a custom transform, and the batch-level augmentations.
    assert callable(v2.Transform.make_params) and callable(v2.Transform.transform)
    assert hasattr(v2, "MixUp") and hasattr(v2, "CutMix")
    # A geometric transform updates canvas_size too: resizing 8x16 -> 16x32 scales the box.
    resized = v2.Resize((16, 32))(sample)
    assert resized["boxes"].tolist() == [[0, 0, 8, 8]] and resized["boxes"].canvas_size == (16, 32)


if __name__ == "__main__":
    _check()
