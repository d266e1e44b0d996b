"""Repository-wide checks that the pre-commit hooks also run: spelling and the hook configuration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.snippet_files import ROOT

BIN = Path(sys.executable).parent
CHECKED = ["README.md", "docs", "hooks", "snippets", "tests", ".github", "mkdocs.yml", "pyproject.toml"]


def test_no_typos() -> None:
    done = subprocess.run([BIN / "typos", *CHECKED], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr + "\n(a real word? add it to [tool.typos] in pyproject.toml)"


def test_the_pre_commit_configuration_is_valid() -> None:
    done = subprocess.run(
        [BIN / "pre-commit", "validate-config", ".pre-commit-config.yaml"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
