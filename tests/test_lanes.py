"""The filename declares the hardware, the GPU lane never goes green without a GPU, and it needs only torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import torch

from tests.run_code import run_in_process, run_in_subprocess, untraced_environment
from tests.snippet_files import (
    ROOT,
    Needs,
    all_snippets,
    declared_needs,
    needs_gpu,
    skip_reason,
    snippet_preprocessor,
    starts_processes,
)


def test_filenames_choose_the_lane() -> None:
    assert needs_gpu(Path("snippets/x/y/amp_cuda.py")) and not starts_processes(Path("snippets/x/y/amp_cuda.py"))
    assert starts_processes(Path("snippets/x/y/ddp_dist.py")) and not needs_gpu(Path("snippets/x/y/ddp_dist.py"))
    assert not needs_gpu(Path("snippets/x/y/cuda_semantics.py"))  # only the suffix counts
    # A GPU *and* processes (NCCL): the GPU lane only, in its own process with the multi-process timeout.
    assert needs_gpu(Path("snippets/x/y/ddp_dist_cuda.py")) and starts_processes(Path("snippets/x/y/ddp_dist_cuda.py"))


def test_a_snippet_can_declare_that_it_runs_in_its_own_process(tmp_path: Path) -> None:
    declared = _snippet(tmp_path, "kernels.py", "# runs in its own process: TRITON_INTERPRET comes before triton")
    assert starts_processes(declared) and not needs_gpu(declared)
    assert not starts_processes(_snippet(tmp_path, "plain.py", "# runs in its own process:"))  # no reason given
    assert not starts_processes(tmp_path / "missing.py")


def test_every_snippet_that_starts_an_nccl_group_runs_in_its_own_process() -> None:
    nccl = [p for p in all_snippets() if "init_process_group" in p.read_text(encoding="utf-8") and needs_gpu(p)]
    assert nccl, "expected the NCCL snippets of the distributed chapter"
    assert [p.name for p in nccl if not starts_processes(p)] == []


def _snippet(tmp_path: Path, name: str, header: str) -> Path:
    path = tmp_path / name
    path.write_text(f'"""A snippet."""\n\n{header}\n\n# --8<-- [start:demo]\nprint(1)\n# --8<-- [end:demo]\n')
    return path


def test_a_snippet_declares_a_torch_range_and_skips_outside_it_with_the_reason(tmp_path: Path) -> None:
    path = _snippet(tmp_path, "in_order.py", "# holds for torch >=2.10: DataLoader(in_order=...) is new in 2.10")
    assert declared_needs(path) == Needs(">=2.10", "DataLoader(in_order=...) is new in 2.10")
    assert skip_reason(path, "cpu", torch_version="2.14.1+cpu") is None
    assert skip_reason(path, "gpu", torch_version="2.10.0a0+git1234") is None  # a pre-release of 2.10 counts
    assert skip_reason(path, "gpu", torch_version="2.9.1+cu128") == (
        "torch 2.9.1; the claim holds for torch >=2.10: DataLoader(in_order=...) is new in 2.10"
    )
    plain = _snippet(tmp_path, "plain.py", "")
    assert declared_needs(plain) == Needs() and skip_reason(plain, "cpu", torch_version="1.0") is None


def test_a_multi_gpu_snippet_skips_on_one_gpu_saying_so(tmp_path: Path) -> None:
    path = _snippet(tmp_path, "sync_bn_dist_cuda.py", "# needs 2 GPUs: SyncBatchNorm syncs statistics across devices")
    assert skip_reason(path, "cpu").startswith("CPU lane; needs a CUDA GPU")
    assert skip_reason(path, "gpu", gpu_count=1) == "1 GPU; needs 2 GPUs: SyncBatchNorm syncs statistics across devices"
    assert skip_reason(path, "gpu", gpu_count=2) is None


@pytest.mark.parametrize(
    ("name", "header", "message"),
    [
        ("a.py", "# holds for torch 2.10 or newer: x", "is not a version range"),
        ("a.py", "# holds for torch: x", "cannot read"),
        ("a.py", "# holds for torch >=2.9: x\n# holds for torch <3: y", "one non-empty torch range per snippet"),
        ("a.py", "# needs 2 GPUs: x", "only a \\*_cuda.py file can need GPUs"),
        ("a_cuda.py", "# needs 1 GPUs: x", "cannot read"),
        ("a_cuda.py", "# needs 2 GPUs", "cannot read"),
    ],
)
def test_a_malformed_declaration_names_file_and_line_and_the_forms(tmp_path, name, header, message) -> None:
    path = _snippet(tmp_path, name, header)
    line = 4 if "\n" in header else 3  # the second of two ranges is the one too many
    with pytest.raises(ValueError, match=rf"^{path}:{line}: .*{message}.*# holds for torch >=2.10: <why>"):
        declared_needs(path)


def test_every_snippet_declaration_in_the_guide_reads() -> None:
    for path in all_snippets():
        declared_needs(path)  # raises, naming the file and line, on a malformed one


def test_pages_expand_without_mkdocs_exactly_as_the_site_does() -> None:
    import markdown
    from mkdocs.config import load_config
    from snippet_markup import parse_include

    config = load_config(str(ROOT / "mkdocs.yml"))
    md = markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"])
    site, ours = md.preprocessors["snippet"], snippet_preprocessor()
    for option in ("base_path", "check_paths", "dedent_subsections", "url_download", "encoding"):
        assert getattr(ours, option) == getattr(site, option), option
    includes = [line for page in (ROOT / "docs").rglob("*.md") for line in page.read_text(encoding="utf-8").split("\n")]
    includes = [line for line in includes if parse_include(line)]
    assert len(includes) > 100
    assert [ours.run([line]) for line in includes] == [site.run([line]) for line in includes]


def test_the_gpu_group_installs_torch_and_the_page_expander_but_no_docs_toolchain() -> None:
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]
    sys.path.insert(0, str(ROOT))
    from tests.tools.gpu_lane import group_pins

    gpu = {pin.split("==")[0]: pin for pin in group_pins("gpu")}
    assert {"torch", "torchvision", "numpy", "pytest", "pytest-markdown-docs", "pymdown-extensions"} <= set(gpu)
    banned = {"mkdocs", "mkdocs-material", "mkdocs-jupyter", "playwright", "nbclient", "ipykernel", "jupytext"}
    assert not banned & set(gpu), "the GPU lane's group must not need the docs toolchain, a browser or a kernel"
    elsewhere = {p.split("==")[0]: p for name in ("test", "docs") for p in group_pins(name)}
    assert [pin for name, pin in gpu.items() if elsewhere.get(name, pin) != pin] == [], "pins must agree"
    assert all(isinstance(e, str) and "==" in e or "include-group" in e for e in groups["gpu"])


def test_the_lane_tool_writes_its_log_report_and_per_file_summary(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.tools.gpu_lane", "--lane=cpu", f"--out={tmp_path}", "-q",
         "-k", "tensors/anatomy/strides or distributed/data-parallelism/sync_batchnorm"],
        cwd=ROOT, capture_output=True, text=True, env=untraced_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["lane"] == "cpu" and summary["torch"].startswith("2.") and summary["gpus"] == 0
    assert summary["files"]["snippets/tensors/anatomy/strides.py"] | {"seconds": 0} == {
        "passed": 1, "skipped": 0, "failed": 0, "seconds": 0, "skips": [],
    }  # fmt: skip
    sync_bn = summary["files"]["snippets/distributed/data-parallelism/sync_batchnorm_dist_cuda.py"]
    assert sync_bn["skipped"] == 1 and sync_bn["skips"][0].startswith("CPU lane; needs a CUDA GPU")
    report = json.loads((tmp_path / "cpu.json").read_text())["snippets"]
    assert report["snippets/tensors/anatomy/strides.py"]["outcome"] == "passed"
    assert report["snippets/distributed/data-parallelism/sync_batchnorm_dist_cuda.py"]["reason"].startswith("CPU lane")
    assert "| `snippets/tensors/anatomy/strides.py` | 1 | 0 | 0 |" in (tmp_path / "summary.md").read_text()
    assert "passed" in (tmp_path / "log.txt").read_text()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU, so the GPU lane may start")
def test_the_gpu_lane_refuses_to_start_without_a_gpu() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--lane=gpu", "--co", "-q", "tests/test_lanes.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=untraced_environment(),
    )
    assert done.returncode == 1
    assert "GPU lane: no CUDA device is visible" in done.stdout + done.stderr


def test_a_snippet_run_as_a_script_runs_in_its_own_process_and_hangs_fail(tmp_path: Path, monkeypatch) -> None:
    """How a snippet that declares it needs its own process runs (a multi-process one: test_rank_server.py)."""
    ok = tmp_path / "ok.py"
    ok.write_text("import os\nprint(os.getpid())\n")
    assert int(run_in_subprocess(ok)) != os.getpid()
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(60)\n")
    monkeypatch.setattr("tests.run_code.DIST_TIMEOUT_S", 1)
    with pytest.raises(AssertionError, match="still running after 1 s"):
        run_in_subprocess(hang)


def test_a_traced_process_starting_snippet_imports_torch_before_coverage_starts(tmp_path: Path, monkeypatch) -> None:
    """Under `--cov` (coverage's variable set), the snippet's process is traced from its first line, but
    torch was imported untraced before (tests/late_coverage); its children are not handed the variable."""
    import coverage

    config = coverage.Coverage(data_file=str(tmp_path / "data"), config_file=False).config.serialize()
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", config)
    probe = tmp_path / "probe_dist.py"
    probe.write_text(
        "import os, sys\nimport coverage\n"
        "print('torch' in sys.modules, coverage.Coverage.current() is not None,"
        " 'COVERAGE_PROCESS_CONFIG' in os.environ)\n"
    )
    assert run_in_subprocess(probe).split() == ["True", "True", "False"]
    assert run_in_subprocess(probe, traced=False).split() == ["False", "False", "False"]


def test_a_deprecated_api_fails_a_snippet_unless_the_snippet_asserts_the_warning(tmp_path: Path) -> None:
    uses_it = tmp_path / "uses_deprecated.py"
    uses_it.write_text('import warnings\nwarnings.warn("old API", FutureWarning)\n')
    with pytest.raises(FutureWarning, match="old API"):
        run_in_process(uses_it)
    teaches_it = tmp_path / "teaches_deprecated.py"
    teaches_it.write_text(
        'import warnings, pytest\nwith pytest.warns(FutureWarning, match="old API"):\n'
        '    warnings.warn("old API", FutureWarning)\n'
    )
    run_in_process(teaches_it)


def test_the_gpu_selection_collects_without_the_docs_toolchain(tmp_path: Path) -> None:
    """What the GPU lane runs imports nothing outside its dependency group: here every package of the
    docs toolchain, the browser and the kernel raises on import, and the selection still collects."""
    from tests.snippet_files import GPU_SELECTION

    for name in ("mkdocs", "material", "playwright", "nbclient", "ipykernel", "jupytext", "nbformat", "bs4"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('{name} is not in the gpu group')\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", *GPU_SELECTION],
        cwd=ROOT, capture_output=True, text=True, env=untraced_environment(PYTHONPATH=str(tmp_path)),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert len(all_snippets()) < int(done.stdout.split(" tests collected")[0].rsplit("\n", 1)[-1])
