"""The "Watch DDP Ranks Sync" step-through narrates a real 2-process run: every number its steps state must
appear in the `# >` output of the snippet it shows. tests/test_snippets.py runs that snippet as two processes
and checks the `# >` lines against what it really printed, so together they pin the narration to the run."""

from __future__ import annotations

import re

from drill_syntax import find_drills, walk
from snippet_markup import parse_target

from tests.expected_output import expected_output
from tests.snippet_files import ROOT, starts_processes

PAGE = ROOT / "docs" / "distributed" / "data-parallelism.md"
TITLE = "Watch DDP Ranks Sync"
# A number not glued to a word or another number ("Q88", "bf16" and "x2" don't count); a sign is kept.
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\w)")


def numbers(text: str) -> set[float]:
    return {float(found) for found in NUMBER.findall(text.replace("\u2212", "-"))}  # U+2212: typeset minus


def walkthrough():
    drills, problems = find_drills(PAGE.read_text(encoding="utf-8"))
    assert not problems, problems
    found = [d for d in walk(drills) if d.kind == "step-through" and d.title == TITLE]
    assert len(found) == 1, f"{PAGE}: expected one step-through titled {TITLE!r}"
    return found[0]


def test_the_numbers_helper_reads_signed_decimals_and_skips_names() -> None:
    assert numbers("w = [1, −1] and [0.5, -0.75]; lr 0.125") == {1.0, -1.0, 0.5, -0.75, 0.125}
    assert numbers("Q88, bf16, x2, `nn.Linear` and step 3.") == {3.0}


def test_the_walkthrough_shows_a_snippet_that_really_starts_processes() -> None:
    include = parse_target(walkthrough().options["code"])
    assert include is not None and starts_processes(ROOT / include.path)


def test_every_number_in_the_narration_is_printed_by_the_real_run() -> None:
    drill = walkthrough()
    include = parse_target(drill.options["code"])
    printed = expected_output((ROOT / include.path).read_text(encoding="utf-8"))
    assert printed, f"{include.path} has no `# >` output lines to check the narration against"
    steps = [step for step in drill.children if step.kind == "step"]
    narrated = {number: step.title for step in steps for number in numbers(step.text())}
    assert len(narrated) >= 10, "the narration should walk through the run's actual numbers"
    missing = sorted(set(narrated) - numbers("\n".join(printed)))
    assert not missing, "\n".join(
        f"{PAGE.relative_to(ROOT)}: step {narrated[n]!r} states {n:g}, which {include.path} never prints"
        for n in missing
    )
