"""Find the fenced code blocks of a Markdown page, with their line numbers (1-based).

Fences may be indented (inside `??? success` panels) and use backticks or tildes; a fence closes on
a line of the same character, at least as long, with nothing after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Fence:
    indent: str
    info: str  # what follows the opening marker, stripped: "python", "{.python continuation}", ""
    opening_line: int
    closing_line: int | None  # None when the page ends inside the fence
    body: tuple[tuple[int, str], ...]  # (line number, text) of every line between the markers


def find_fences(markdown: str) -> list[Fence]:
    fences: list[Fence] = []
    lines = markdown.split("\n")
    number = 0
    while number < len(lines):
        opening = _OPENING.match(lines[number])
        number += 1
        if opening is None:
            continue
        opening_line = number
        marker = opening.group("marker")
        closing = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        body: list[tuple[int, str]] = []
        closing_line = None
        while number < len(lines):
            line = lines[number]
            number += 1
            if closing.match(line):
                closing_line = number
                break
            body.append((number, line))
        fences.append(
            Fence(
                indent=opening.group("indent"),
                info=opening.group("info").strip(),
                opening_line=opening_line,
                closing_line=closing_line,
                body=tuple(body),
            )
        )
    return fences
