"""Where snippets live, and which lane runs each one — the filename declares the hardware.

- `*_cuda.py`  needs a CUDA GPU: runs only on the GPU lane (`make test-gpu`).
- `*_dist.py`  starts its own processes (gloo on CPU, NCCL on GPU): run as a subprocess.
- anything else is device-agnostic and runs in-process on both lanes.

`snippets/<chapter>/lab.py` is not a snippet but a practice lab, a notebook (hooks/lab_format.py) run by
tests/test_labs.py.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"


def all_snippets(root: Path = SNIPPETS) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if "__pycache__" not in path.parts and not is_lab(path, root))


def is_lab(path: Path, root: Path = SNIPPETS) -> bool:
    return path.name == "lab.py" and path.parent.parent == root


def all_pages(root: Path = DOCS) -> list[Path]:
    return sorted(root.rglob("*.md"))


def needs_gpu(path: Path) -> bool:
    return path.stem.endswith("_cuda")


def starts_processes(path: Path) -> bool:
    return path.stem.endswith("_dist")


def repo_relative(path: Path) -> str:
    return path.resolve().relative_to(ROOT).as_posix()
