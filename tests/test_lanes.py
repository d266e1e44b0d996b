"""The filename declares the hardware, and the GPU lane never goes green without a GPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.run_code import run_in_process, run_in_subprocess
from tests.snippet_files import ROOT, needs_gpu, starts_processes


def test_filenames_choose_the_lane() -> None:
    assert needs_gpu(Path("snippets/x/y/amp_cuda.py")) and not starts_processes(Path("snippets/x/y/amp_cuda.py"))
    assert starts_processes(Path("snippets/x/y/ddp_dist.py")) and not needs_gpu(Path("snippets/x/y/ddp_dist.py"))
    assert not needs_gpu(Path("snippets/x/y/cuda_semantics.py"))  # only the suffix counts


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU, so the GPU lane may start")
def test_the_gpu_lane_refuses_to_start_without_a_gpu() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--lane=gpu", "--co", "-q", "tests/test_lanes.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "GPU lane: no CUDA device is visible" in done.stdout + done.stderr


def test_a_multi_process_snippet_runs_in_its_own_process_and_hangs_fail(tmp_path: Path, monkeypatch) -> None:
    ok = tmp_path / "ok_dist.py"
    ok.write_text("import os\nprint(os.getpid())\n")
    assert int(run_in_subprocess(ok)) != os.getpid()
    hang = tmp_path / "hang_dist.py"
    hang.write_text("import time\ntime.sleep(60)\n")
    monkeypatch.setattr("tests.run_code.DIST_TIMEOUT_S", 1)
    with pytest.raises(AssertionError, match="still running after 1 s"):
        run_in_subprocess(hang)


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
