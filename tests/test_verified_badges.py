"""The badges on the built site come from real test reports, and an unreported build shows no tick."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from verification_reports import build_report

from tests.conftest import Build, mkdocs_build
from tests.run_code import untraced_environment
from tests.snippet_files import DOCS, ROOT, SNIPPETS, repo_relative

PAGE = Path("tensors") / "anatomy" / "index.html"


def test_a_build_without_reports_says_it_is_unverified(built_site: Build) -> None:
    html = (built_site.site / PAGE).read_text(encoding="utf-8")
    assert "Unverified build" in html
    assert "not verified in this build" in html
    assert "✓" not in html


ANATOMY = SNIPPETS / "tensors" / "anatomy"
SKIPPED = ANATOMY / "strides.py"  # as if it needed 2 GPUs and the runner had 1


@pytest.fixture(scope="module")
def reported_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """One build given real reports: a CPU run of one page's snippets and of one lab (one pytest run, so
    one cpu.json), and a GPU report as the GPU runner's artifact looks. Both tests below read it."""
    tmp_path = tmp_path_factory.mktemp("badges")
    reports = tmp_path / "reports"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_snippets.py",
         "tests/test_labs.py", "-k", "tensors/anatomy or snippets/tensors/lab.py",
         f"--verification-report={reports / 'cpu.json'}"],
        cwd=ROOT, capture_output=True, text=True, env=untraced_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = {repo_relative(p): ("passed", p.read_text()) for p in sorted(ANATOMY.glob("*.py"))}
    outcomes[repo_relative(SKIPPED)] = ("skipped", SKIPPED.read_text(), "1 GPU; needs 2 GPUs: a made-up need")
    (reports / "gpu.json").write_text(  # what the GPU runner's artifact looks like
        build_report("gpu", "2.11.0", "NVIDIA H100 80GB HBM3", "2026-11-29", outcomes)
    )
    build = mkdocs_build(ROOT, tmp_path / "site", reports=reports)
    assert build.returncode == 0, build.log
    return build


def test_badges_come_from_a_cpu_run_report_and_a_gpu_report(reported_build: Build) -> None:
    html = (reported_build.site / PAGE).read_text(encoding="utf-8")
    blocks = html.count('class="snippet-source"')
    showing_skipped = (DOCS / "tensors" / "anatomy.md").read_text(encoding="utf-8").count(repo_relative(SKIPPED) + ":")
    assert html.count("✓ CPU · torch ") == blocks + 1  # every block, plus the page status line
    # The GPU badge says what ran: "GPU", the torch version, the GPU's name; never on the skipped snippet's blocks.
    assert html.count("✓ GPU · torch 2.11.0 · NVIDIA H100 80GB HBM3") == blocks - showing_skipped + 1
    assert f"{blocks - showing_skipped} of {blocks} code blocks" in html
    assert re.search(rf"✓ CPU · torch [\d.]+</span> {blocks} of {blocks} code blocks", html)
    assert "not verified in this build" not in html


def test_a_lab_page_is_verified_only_by_a_run_of_that_lab(reported_build: Build) -> None:
    ran = (reported_build.site / "tensors" / "lab" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"Verified: <span [^>]*>✓ CPU · torch [\d.]+</span> — ran top to bottom", ran)
    not_run = (reported_build.site / "autograd" / "lab" / "index.html").read_text(encoding="utf-8")
    assert "Unverified build" in not_run and "✓" not in not_run
