"""`make grade C=13 FILE=mine.py` (tests/tools/grade.py): a pass, each way of failing, and never a traceback.

Graded against C13 (snippets/coding/attention/sdpa_masks.py), whose sections give a right, a wrong and an
unfinished answer.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from snippet_markup import section_lines

from tests.run_code import untraced_environment
from tests.snippet_files import ROOT
from tests.tools.grade import main

PROBLEM = ROOT / "snippets" / "coding" / "attention" / "sdpa_masks.py"


def section(name: str) -> str:
    return "\n".join(section_lines(PROBLEM.read_text(encoding="utf-8"), name)) + "\n"


def grade(tmp_path: Path, capsys, source: str, *extra: str, problem: str = "13") -> tuple[int, str]:
    mine = tmp_path / "mine.py"
    mine.write_text(source)
    code = main([problem, str(mine), *extra])
    printed = capsys.readouterr().out
    assert "Traceback" not in printed and printed.count("\n") == 1, printed  # one line, never a traceback
    return code, printed.strip()


def test_the_reference_passes(tmp_path, capsys):
    code, said = grade(tmp_path, capsys, section("solution"))
    assert code == 0 and said.startswith("C13 passes: matches SDPA"), said


def test_the_wrong_attempt_fails_with_the_graders_message(tmp_path, capsys):
    code, said = grade(tmp_path, capsys, section("wrong"), problem="C13")
    # the line is where the CPU mask meets the CUDA padding mask
    assert code == 1 and said.startswith("C13 fails: C13 · check 2/8 (device): not device-agnostic (line 13)"), said
    assert said.endswith("found at least two devices, cpu and cuda:0! Create tensors with `device=q.device`")


def test_the_stub_fails(tmp_path, capsys):
    code, said = grade(tmp_path, capsys, section("prompt"))
    assert code == 1 and "attention raised NotImplementedError" in said, said


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def attention(q, k, v:\n    pass\n", r"mine\.py:1: syntax error: "),
        ("def softmax(x):\n    return x\n", r"mine\.py defines no `attention`: C13 asks for `attention`"),
        (
            "def attention(q, k, v):\n    return v\n",
            r"`attention` takes \(q, k, v\); the prompt's signature is \(q, k, v, key_padding_mask, causal\)",
        ),
        ("import torch\nraise ValueError('oops')\n", r"mine\.py: loading it raised ValueError: oops"),
    ],
    ids=["syntax error", "missing entry", "wrong signature", "raises on load"],
)
def test_a_file_that_cannot_be_graded_gets_one_line_and_exit_1(tmp_path, capsys, source, expected):
    code, said = grade(tmp_path, capsys, source)
    assert code == 1 and re.search(expected, said), said


def test_a_function_that_hangs_is_stopped_at_the_time_limit(tmp_path, capsys):
    hangs = "def attention(q, k, v, key_padding_mask=None, causal=False):\n    while True:\n        pass\n"
    code, said = grade(tmp_path, capsys, hangs, "--timeout", "3")
    assert code == 1 and said.endswith("no answer within 3 s: an endless loop, or far too slow (limit: --timeout)")


def test_nothing_to_grade_exits_2(tmp_path, capsys):
    assert main(["13", str(tmp_path / "missing.py")]) == 2
    assert "missing.py: no such file" in capsys.readouterr().out
    assert main(["99", str(tmp_path / "missing.py")]) == 2
    assert "no problem C99" in capsys.readouterr().out
    assert main(["", ""]) == 2
    assert "give the problem's number" in capsys.readouterr().out


def test_make_grade_runs_the_tool_and_passes_its_exit_code_on(tmp_path):
    assert '$(BIN)/python tests/tools/grade.py "$(C)" "$(FILE)"' in (ROOT / "Makefile").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "tests/tools/grade.py", "13", str(tmp_path / "none.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=untraced_environment(),
    )
    assert done.returncode == 2 and "none.py: no such file" in done.stdout and not done.stderr
