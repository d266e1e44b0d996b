"""The one generic runner: every file under snippets/ runs, its checks pass and it prints its `# >` lines.

Test ids are the snippet paths: `pytest -k view_vs_reshape` runs one. A snippet that cannot run here (a
`*_cuda.py` file on the CPU lane, too few GPUs, a torch outside the range its claim holds for) is skipped
with the reason, which the verification report keeps (tests/snippet_files.py `skip_reason`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.expected_output import check_output
from tests.run_code import run_snippet
from tests.snippet_files import all_snippets, repo_relative, skip_reason


@pytest.mark.parametrize("path", all_snippets(), ids=repo_relative)
def test_snippet(path: Path, lane: str) -> None:
    if reason := skip_reason(path, lane):
        pytest.skip(reason)
    printed = run_snippet(path)
    check_output(path.read_text(encoding="utf-8"), printed, where=repo_relative(path))
