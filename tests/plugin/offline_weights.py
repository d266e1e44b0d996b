"""Torchvision's pretrained weights without a download: a random ResNet-18 checkpoint where the loader looks.

`resnet18(weights=ResNet18_Weights.DEFAULT)` first looks for `$TORCH_HOME/hub/checkpoints/<file name of the URL>`
and only downloads when the file is missing; the hash is checked only after a download. So a randomly initialized
`resnet18(weights=None).state_dict()` saved under that name lets the real loading code on the pages and in the
snippets run as a reader copies it, with nothing fetched (the tests have no network).

The fixture is session-scoped and autouse: TORCH_HOME is set once, before tests/plugin/torch_state.py snapshots
os.environ for each test (it puts each test's environment back to what it was when that test started), and the
original value is restored when the session ends. The checkpoint is built from its own seed, so it is the same in
every run, and the global RNG is left as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

SEED = 0


def write_checkpoint(torch_home: Path) -> Path:
    """Save a random ResNet-18 state_dict where `resnet18(weights=ResNet18_Weights.DEFAULT)` will load it from."""
    import torch
    from torchvision.models import ResNet18_Weights, resnet18

    checkpoint = torch_home / "hub" / "checkpoints" / Path(ResNet18_Weights.DEFAULT.url).name
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        torch.save(resnet18(weights=None).state_dict(), checkpoint)
    return checkpoint


@pytest.fixture(scope="session", autouse=True)
def offline_torchvision_weights(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    checkpoint = write_checkpoint(tmp_path_factory.mktemp("torch_home"))
    saved = os.environ.get("TORCH_HOME")
    os.environ["TORCH_HOME"] = str(checkpoint.parents[2])
    try:
        yield checkpoint
    finally:
        if saved is None:
            os.environ.pop("TORCH_HOME", None)
        else:
            os.environ["TORCH_HOME"] = saved
