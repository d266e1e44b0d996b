"""Where snippets live, which lane runs each one, and what a snippet declares it needs.

The filename declares the hardware:

- `*_cuda.py`       needs a CUDA GPU: runs only on the GPU lane (`make test-gpu`).
- `*_dist.py`       starts a process group (gloo on CPU, NCCL on GPU), its ranks with `elastic_launch`: runs
                    in the test's process like the others, its ranks forked from a server that has
                    torch imported (tests/rank_server.py), with a timeout.
- `*_dist_cuda.py`  both: the GPU lane runs it the same way.
- anything else is device-agnostic and runs in-process on both lanes, unless it declares
  `# runs in its own process: <why>` (hooks/run_modes.py): then it runs as a script in a fresh process,
  like a `*_dist.py` file (e.g. TRITON_INTERPRET=1 must be set before anything imports triton).

A snippet may declare, in a comment line of its own at the left margin (outside the shown sections),
what its claims need beyond that; the runner skips it with the reason otherwise, never fails it and
never lets it pass silently:

    # holds for torch >=2.10: DataLoader(in_order=...) is new in 2.10
    # needs 2 GPUs: SyncBatchNorm syncs statistics across devices        (only in a *_cuda.py file)

`snippets/<chapter>/lab.py` is not a snippet but a practice lab, a notebook (hooks/lab_format.py) run by
tests/test_labs.py.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"

# What the GPU lane runs (`make test-gpu`, tests/tools/gpu_lane.py): every snippet and every page's code.
# It needs only the `gpu` dependency group: nothing here imports mkdocs, a browser or a Jupyter kernel.
GPU_SELECTION = ("tests/test_snippets.py", "docs")


def all_snippets(root: Path = SNIPPETS) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if "__pycache__" not in path.parts and not is_lab(path, root))


def is_lab(path: Path, root: Path = SNIPPETS) -> bool:
    return path.name == "lab.py" and path.parent.parent == root


def all_pages(root: Path = DOCS) -> list[Path]:
    return sorted(root.rglob("*.md"))


def needs_gpu(path: Path) -> bool:
    return path.stem.endswith("_cuda")


def launches_ranks(path: Path) -> bool:
    """A `*_dist.py` (or `*_dist_cuda.py`) snippet: it starts a process group, its ranks with `elastic_launch`."""
    return path.stem.endswith(("_dist", "_dist_cuda"))


def starts_processes(path: Path) -> bool:
    """Runs in its own process: it starts processes (`*_dist.py`), or it declares that it must."""
    if launches_ranks(path):
        return True
    from run_modes import declares_own_process  # hooks/ is on the path under pytest, not for tests/tools

    return path.is_file() and declares_own_process(path.read_text(encoding="utf-8"))


def repo_relative(path: Path) -> str:
    return path.resolve().relative_to(ROOT).as_posix()


# ---- What a snippet declares it needs ---------------------------------------------------------------
_TORCH_RANGE = re.compile(r"^# holds for torch (?P<spec>[^:]+?): (?P<why>\S.*)$")
_GPU_COUNT = re.compile(r"^# needs (?P<count>[2-9]|[1-9]\d+) GPUs: (?P<why>\S.*)$")
_LOOKS_LIKE = re.compile(r"^# (holds for\b|needs \d)")
_FORMS = "`# holds for torch >=2.10: <why>` or, in a *_cuda.py file, `# needs 2 GPUs: <why>`"


@dataclass(frozen=True)
class Needs:
    """What a snippet's claims need beyond its lane: a torch version range and a number of GPUs."""

    torch: str | None = None  # a PEP 440 specifier set, such as ">=2.10,<2.15"
    torch_why: str = ""
    gpus: int = 1
    gpus_why: str = ""


def declared_needs(path: Path) -> Needs:
    """Read the `# holds for torch …` and `# needs N GPUs: …` lines; a malformed one is an error naming the
    file and line and showing the forms it may take."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    needs = Needs()
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not _LOOKS_LIKE.match(line):
            continue
        where = f"{path}:{number}"
        if torch_range := _TORCH_RANGE.match(line):
            try:
                spec = str(SpecifierSet(torch_range["spec"].replace(" ", "")))
            except InvalidSpecifier:
                raise ValueError(f"{where}: {torch_range['spec']!r} is not a version range; write {_FORMS}") from None
            if needs.torch is not None or not spec:
                raise ValueError(f"{where}: one non-empty torch range per snippet; write {_FORMS}")
            needs = Needs(spec, torch_range["why"], needs.gpus, needs.gpus_why)
        elif gpu_count := _GPU_COUNT.match(line):
            if not needs_gpu(path):
                raise ValueError(f"{where}: only a *_cuda.py file can need GPUs; rename it, or write {_FORMS}")
            needs = Needs(needs.torch, needs.torch_why, int(gpu_count["count"]), gpu_count["why"])
        else:
            raise ValueError(f"{where}: cannot read {line!r}; write {_FORMS}")
    return needs


def skip_reason(path: Path, lane: str, torch_version: str | None = None, gpu_count: int | None = None) -> str | None:
    """Why this snippet does not run here (None: it runs). The reason starts with what this machine lacks,
    so a report keeps it: "1 GPU; …", "torch 2.11.0; …", "CPU lane; …"."""
    if needs_gpu(path) and lane != "gpu":
        return "CPU lane; needs a CUDA GPU: runs on the GPU lane (make test-gpu)"
    needs = declared_needs(path)
    if needs.torch is not None:
        from packaging.specifiers import SpecifierSet
        from packaging.version import Version

        version = Version(Version(torch_version or _torch_version()).base_version)  # a 2.10 nightly counts as 2.10
        if version not in SpecifierSet(needs.torch):
            return f"torch {version}; the claim holds for torch {needs.torch}: {needs.torch_why}"
    if needs.gpus > 1:
        count = _gpu_count() if gpu_count is None else gpu_count
        if count < needs.gpus:
            return f"{count} GPU{'s' if count != 1 else ''}; needs {needs.gpus} GPUs: {needs.gpus_why}"
    return None


def _torch_version() -> str:
    import torch

    return torch.__version__


def _gpu_count() -> int:
    import torch

    return torch.cuda.device_count()


# ---- Page includes, expanded without MkDocs ---------------------------------------------------------
@functools.cache
def snippet_preprocessor():
    """pymdownx.snippets' own preprocessor, configured as `mkdocs.yml` configures it for the site.

    Read from mkdocs.yml with plain YAML (MkDocs' `!relative $config_dir` is the repository root; other
    tags are MkDocs' and irrelevant here), so expanding a page needs pymdown-extensions, not MkDocs."""
    import markdown
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    def relative(loader: yaml.SafeLoader, node: yaml.Node) -> str:
        value = loader.construct_scalar(node)
        if not value.startswith("$config_dir"):
            raise ValueError(f"mkdocs.yml: `!relative {value}`: only $config_dir paths are understood here")
        return str(ROOT / value.removeprefix("$config_dir").lstrip("/"))

    _Loader.add_constructor("!relative", relative)
    _Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    _Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    found = [e for e in config["markdown_extensions"] if isinstance(e, dict) and "pymdownx.snippets" in e]
    if len(found) != 1:
        raise ValueError("mkdocs.yml: expected one `pymdownx.snippets:` entry with its options in markdown_extensions")
    options = found[0]["pymdownx.snippets"]
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options})
    return md.preprocessors["snippet"]
