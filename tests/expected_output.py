"""Printed output is checked: the `# > …` lines of a snippet are what it must print, in order."""

from __future__ import annotations

import difflib
import re

_OUTPUT_LINE = re.compile(r"^[ \t]*# >(?: (?P<text>.*))?$")


def expected_output(source: str) -> list[str]:
    """The `# >` lines of a source, without their prefix (`# >` alone is an empty printed line)."""
    return [match.group("text") or "" for line in source.split("\n") if (match := _OUTPUT_LINE.match(line))]


def check_output(source: str, printed: str, where: str) -> None:
    """Raise AssertionError naming `where` when `printed` differs from the source's `# >` lines."""
    expected = expected_output(source)
    actual = [line.rstrip() for line in printed.split("\n")]
    if actual and actual[-1] == "":
        actual.pop()
    if [line.rstrip() for line in expected] != actual:
        diff = "\n".join(difflib.unified_diff(expected, actual, "# > lines in the source", "printed", lineterm=""))
        raise AssertionError(
            f"{where}: printed output differs from its `# >` lines "
            f"(put the exact output under each print, one `# > ` line per printed line):\n{diff}"
        )
