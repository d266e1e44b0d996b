"""A contribution end to end, on a copy of the sources: `make new-question` scaffolds a question; the
page's tests pass with the new snippet among them and write a verification report; the site built from
that report (and a GPU report shaped as the GPU runner's artifact) passes the strict build, and its
badges say what each report verified.

One pytest run and one site build serve every test here (the module's `contribution`), so the tests of
this file share a worker (tests/plugin/worker_groups.py).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from verification_reports import build_report

from tests.conftest import Build, copy_sources, mkdocs_build, workers_folder
from tests.run_code import untraced_environment
from tests.tools.new_question import new_question

ANATOMY = Path("snippets") / "tensors" / "anatomy"
SKIPPED = ANATOMY / "strides.py"  # as if it needed 2 GPUs and the runner had 1
NEW_SNIPPET = ANATOMY / "scaffold_probe.py"
PAGE = Path("tensors") / "anatomy" / "index.html"


@dataclass(frozen=True)
class Contribution:
    root: Path  # the copy of the sources, with the new question
    tests: subprocess.CompletedProcess  # its page's tests and one lab, run with --verification-report
    build: Build  # the strict build given that report and a GPU report


@pytest.fixture(scope="module")
def contribution(tmp_path_factory: pytest.TempPathFactory) -> Contribution:
    root = copy_sources(tmp_path_factory.mktemp("contribution"), workers_folder(tmp_path_factory))
    page, _ = new_question(root, "tensors/anatomy", NEW_SNIPPET.stem, 999, "Does the scaffold pass?")
    assert "## Q999 · Does the scaffold pass?" in page.read_text()
    reports = root / "reports"
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "tests/test_snippet_contract.py",
         "tests/test_snippets.py", "tests/test_labs.py", "docs/tensors/anatomy.md",
         "-k", "anatomy or snippets/tensors/lab.py", f"--verification-report={reports / 'cpu.json'}"],
        cwd=root, capture_output=True, text=True, env=untraced_environment(),
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    outcomes = {
        path.relative_to(root).as_posix(): ("passed", path.read_text())
        for path in sorted((root / ANATOMY).glob("*.py"))
    }
    outcomes[SKIPPED.as_posix()] = ("skipped", (root / SKIPPED).read_text(), "1 GPU; needs 2 GPUs: a made-up need")
    (reports / "gpu.json").write_text(  # what the GPU runner's artifact looks like
        build_report("gpu", "2.11.0", "NVIDIA H100 80GB HBM3", "2026-11-29", outcomes)
    )
    return Contribution(root, tests, mkdocs_build(root, root / "site", reports=reports))


def test_a_scaffolded_question_passes_the_tests_and_the_build(contribution: Contribution) -> None:
    assert f"PASSED tests/test_snippets.py::test_snippet[{NEW_SNIPPET.as_posix()}]" in contribution.tests.stdout
    assert contribution.build.returncode == 0, contribution.build.log


def test_badges_come_from_a_cpu_run_report_and_a_gpu_report(contribution: Contribution) -> None:
    html = (contribution.build.site / PAGE).read_text(encoding="utf-8")
    blocks = html.count('class="snippet-source"')
    page = (contribution.root / "docs" / "tensors" / "anatomy.md").read_text(encoding="utf-8")
    showing_skipped = page.count(SKIPPED.as_posix() + ":")
    assert NEW_SNIPPET.as_posix() in html  # the new question's block is among them
    assert html.count("✓ CPU · torch ") == blocks + 1  # every block, plus the page status line
    # The GPU badge says what ran: "GPU", the torch version, the GPU's name; never on the skipped snippet's blocks.
    assert html.count("✓ GPU · torch 2.11.0 · NVIDIA H100 80GB HBM3") == blocks - showing_skipped + 1
    assert f"{blocks - showing_skipped} of {blocks} code blocks" in html
    assert re.search(rf"✓ CPU · torch [\d.]+</span> {blocks} of {blocks} code blocks", html)
    assert "not verified in this build" not in html


def test_a_lab_page_is_verified_only_by_a_run_of_that_lab(contribution: Contribution) -> None:
    site = contribution.build.site
    ran = (site / "tensors" / "lab" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"Verified: <span [^>]*>✓ CPU · torch [\d.]+</span> — ran top to bottom", ran)
    not_run = (site / "autograd" / "lab" / "index.html").read_text(encoding="utf-8")
    assert "Unverified build" in not_run and "✓" not in not_run
