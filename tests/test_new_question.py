"""`make new-question` produces a question that passes the contract, the snippet runner and the build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import mkdocs_build
from tests.run_code import untraced_environment
from tests.tools.new_question import new_question


def test_a_scaffolded_question_passes_the_tests_and_the_build(project_copy: Path) -> None:
    page, snippet = new_question(project_copy, "tensors/anatomy", "scaffold_probe", 999, "Does the scaffold pass?")
    assert "## Q999 · Does the scaffold pass?" in page.read_text()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "tests/test_snippet_contract.py",
         "tests/test_snippets.py", "-k", "anatomy", "docs/tensors/anatomy.md"],
        cwd=project_copy, capture_output=True, text=True, env=untraced_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "PASSED tests/test_snippets.py::test_snippet[snippets/tensors/anatomy/scaffold_probe.py]" in done.stdout
    build = mkdocs_build(project_copy, project_copy / "site")
    assert build.returncode == 0, build.log


@pytest.mark.parametrize(
    ("page", "name", "number", "message"),
    [
        ("tensors/nope", "x", 1, "docs/tensors/nope.md does not exist"),
        ("tensors/anatomy", "Bad-Name", 1, "snake_case"),
        ("tensors/anatomy", "attributes", 1, "already exists"),
        ("tensors/anatomy", "fresh", 1, "already has a Q1"),
    ],
)
def test_the_scaffold_refuses_what_would_break_the_contract(project_copy, page, name, number, message) -> None:
    with pytest.raises(SystemExit, match=message):
        new_question(project_copy, page, name, number, "A question?")
