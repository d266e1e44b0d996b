"""The CPU lane (default) and the GPU lane (`--lane=gpu`, `make test-gpu`).

The GPU lane runs everything, `*_cuda.py` included, and refuses to start without a CUDA device: a
GPU lane never goes green by skipping everything.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--lane",
        choices=("cpu", "gpu"),
        default="cpu",
        help="cpu: device-agnostic and multi-process snippets; gpu: also *_cuda.py, and a GPU is required",
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.getoption("lane") == "gpu":
        import torch

        if not torch.cuda.is_available():
            pytest.exit("GPU lane: no CUDA device is visible (torch.cuda.is_available() is False)", returncode=1)


@pytest.fixture(scope="session")
def lane(pytestconfig: pytest.Config) -> str:
    return pytestconfig.getoption("lane")
