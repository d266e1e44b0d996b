"""The snippet markup, read with pymdownx.snippets' own parser (never a second, home-made one).

Two pieces of markup tie a page to its code:

- an include line in a page:      --8<-- "snippets/tensors/anatomy/strides.py:demo"
- section markers in a snippet:   # --8<-- [start:demo]  …  # --8<-- [end:demo]

Used by the hooks and by the tests, so the build and the contract test read the markup the same way.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import markdown


@functools.cache
def _pymdownx():
    """pymdownx's snippet preprocessor, used only for its parsing methods."""
    return markdown.Markdown(extensions=["pymdownx.snippets"]).preprocessors["snippet"]


@dataclass(frozen=True)
class Include:
    """One `--8<-- "path:section"` line of a page."""

    path: str
    section: str | None
    uses_line_numbers: bool


def parse_include(line: str) -> Include | None:
    """The include on this line, or None when the line is not a single-line include."""
    match = _pymdownx().RE_ALL_SNIPPETS.match(line)
    if match is None or match.group("escape") or not match.group("inline_marker"):
        return None
    target = _pymdownx().parse_snippet_target(match.group("snippet")[1:-1].strip())
    if target is None:
        return None
    return Include(target["path"], target["section"], bool(target["start"]))


def is_block_marker(line: str) -> bool:
    """True for a bare `--8<--` line (pymdownx's multi-line include form)."""
    match = _pymdownx().RE_ALL_SNIPPETS.match(line)
    return bool(match and not match.group("escape") and match.group("block_marker"))


@dataclass(frozen=True)
class Section:
    """A named section of a snippet file; lines are 1-based and exclude the markers."""

    name: str
    first_line: int
    last_line: int


@dataclass(frozen=True)
class MarkerProblem:
    line: int
    message: str


def read_sections(text: str) -> tuple[dict[str, Section], list[MarkerProblem]]:
    """The sections of a snippet file, and what is wrong with its markers (unbalanced, duplicated)."""
    opened: dict[str, int] = {}
    sections: dict[str, Section] = {}
    problems: list[MarkerProblem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = _pymdownx().match_section(line)
        if match is None or match.group("escape"):
            continue
        name, kind = match.group("name"), match.group("type").lower()
        if kind == "start":
            if name in opened or name in sections:
                problems.append(
                    MarkerProblem(number, f"section '{name}' is started twice; give each section one unique name")
                )
            else:
                opened[name] = number
        elif name in opened:
            sections[name] = Section(name, opened.pop(name) + 1, number - 1)
        else:
            problems.append(MarkerProblem(number, f"end marker for section '{name}' has no start marker before it"))
    for name, number in opened.items():
        problems.append(
            MarkerProblem(
                number,
                f"section '{name}' is never closed: add `# --8<-- [end:{name}]` "
                "(an open section silently shows the rest of the file, hidden checks included)",
            )
        )
    return sections, problems


def parse_target(target: str) -> Include | None:
    """A `path:section` written without the include marker (a drill's `code:` option), read like an include."""
    parsed = _pymdownx().parse_snippet_target(target.strip())
    if parsed is None:
        return None
    return Include(parsed["path"], parsed["section"], bool(parsed["start"]))


def section_lines(text: str, section: str) -> list[str]:
    """The lines an include of `section` shows, as the site includes it (other markers dropped, dedented:
    mkdocs.yml sets `dedent_subsections: true`). Empty when the file has no such section."""
    lines = _pymdownx().extract_section(section, text.split("\n"))
    return _pymdownx().dedent(lines) if lines else []
