"""Spot the bug: view where permute belongs scrambles an NHWC batch silently."""

# --8<-- [start:buggy]
import numpy as np
import torch
from torch import nn


def to_tensor(a):  # a: uint8 images, shape (N, H, W, 3)
    n, h, w, _ = a.shape
    x = torch.from_numpy(a).float()
    x = x.view(n, 3, h, w) / 255
    return x


model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3))
batch = np.random.randint(0, 256, (4, 8, 8, 3), dtype=np.uint8)
print(tuple(model(to_tensor(batch)).shape))
# > (4, 3)
# --8<-- [end:buggy]

buggy_to_tensor = to_tensor

assert torch  # used above, in functions the next section's import shadows

# --8<-- [start:fixed]
import numpy as np
import torch
from torch import nn


def to_tensor(a):  # a: uint8 images, shape (N, H, W, 3)
    x = torch.from_numpy(a).float()
    x = x.permute(0, 3, 1, 2) / 255  # NHWC -> NCHW, pixels intact
    return x.contiguous(memory_format=torch.channels_last)


model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3))
batch = np.random.randint(0, 256, (4, 8, 8, 3), dtype=np.uint8)
print(tuple(model(to_tensor(batch)).shape))
# > (4, 3)
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    a = np.random.randint(0, 256, (2, 8, 8, 3), dtype=np.uint8)
    bad, good = buggy_to_tensor(a), to_tensor(a)
    assert bad.shape == good.shape and not torch.equal(bad, good)
    # "Channel 0" of the view starts with R, G, B of pixel (0, 0).
    torch.testing.assert_close(bad[0, 0, 0, :3], torch.from_numpy(a[0, 0, 0]).float() / 255)
    torch.testing.assert_close(good[0, :, 0, 0], torch.from_numpy(a[0, 0, 0]).float() / 255)

    # A colour-only task: the class is the dominant channel. The fixed loader learns it.
    def accuracy(convert):
        gen = torch.Generator().manual_seed(0)
        labels = torch.randint(0, 3, (48,), generator=gen)
        imgs = torch.randint(0, 160, (48, 4, 4, 3), generator=gen)
        imgs[torch.arange(48), :, :, labels] += 95  # the class's channel is brighter
        imgs = imgs.to(torch.uint8).numpy()
        torch.manual_seed(0)
        net = nn.Sequential(nn.Conv2d(3, 8, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3))
        opt = torch.optim.Adam(net.parameters(), lr=0.05)
        x = convert(imgs)
        for _ in range(30):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), labels).backward()
            opt.step()
        return (net(x).argmax(1) == labels).float().mean().item()

    assert accuracy(to_tensor) > 0.95
    assert accuracy(buggy_to_tensor) < 0.6  # near chance (1/3)


if __name__ == "__main__":
    _check()
