"""Read the drill blocks of a page's Markdown source: kind, title, options, body and line numbers.

A drill is a pymdownx Block written at the left margin (the syntax: docs/conventions.md#drills):

    /// spot-the-bug | Spot the Bug: Device Mismatch         <- opener: `///`, the kind, `|` and a title
    code: snippets/tensors/devices/device_mismatch.py:buggy  <- options: `key: value` lines right under it
    bug: 5                                                   <- (YAML; a blank line ends them)

    The explanation, in Markdown.                            <- body
    ///                                                      <- closer: as many slashes as the opener

Steps and cards nest inside their drill with four slashes (`//// step | …`, `//// card | …`).

The build check (hooks/drill_checks.py, run by hooks/code_from_snippets.py), the Markdown extension
(hooks/drill_blocks.py) and the contract test all read drills through this module, so they agree on
where a drill starts and ends and what its options say. Options are read with `yaml.safe_load`, the
parser pymdownx Blocks uses for them.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from page_fences import find_fences


@dataclass(frozen=True)
class Kind:
    options: tuple[str, ...]  # the options it takes; a kind without options reads its body from the first line
    parent: str | None  # the drill it must sit in; None for a drill of its own


KINDS: dict[str, Kind] = {
    "spot-the-bug": Kind(("code", "bug", "fix", "hints"), None),
    "step-through": Kind(("code", "root", "graph"), None),
    "step": Kind(("nodes",), "step-through"),
    "match": Kind((), None),
    "flashcards": Kind((), None),
    "card": Kind((), "flashcards"),
}

OPENER = re.compile(
    r"^(?P<indent>[ \t]*)(?P<slashes>/{3,})[ \t]*(?P<kind>[\w-]+)[ \t]*(?:\|[ \t]*(?P<title>.*?))?[ \t]*$"
)
CLOSER = re.compile(r"^(?P<indent>[ \t]*)(?P<slashes>/{3,})[ \t]*$")
_OPTION = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?:[ \t]|$)")
_NESTED_OPTION = re.compile(r"^[ \t]+(?:-[ \t]+)?(?P<key>[^\s:#][^:]*?)[ \t]*:(?:[ \t]|$)")
_MATCH_ITEM = re.compile(r"^(?P<item>.*?)[ \t]+::(?:[ \t]+(?P<target>.*?))?[ \t]*$")


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


@dataclass
class Drill:
    kind: str
    title: str  # what follows `|`, stripped; "" when there is none
    line: int  # the opener's line (1-based, in the page file)
    slashes: int
    options: dict[str, Any] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)  # "bug" -> 3, "hints.2" -> 5
    body: list[tuple[int, str]] = field(default_factory=list)  # its own Markdown lines, nested drills excluded
    children: list[Drill] = field(default_factory=list)
    end_line: int | None = None

    def line_of(self, key: str) -> int:
        """The line of an option (`"hints.2"` for a nested key), else the opener's."""
        return self.option_lines.get(key, self.line)

    def text(self) -> str:
        return "\n".join(text for _, text in self.body).strip()


def option_span(lines: list[str], start: int) -> int:
    """The index after the option lines that begin at `lines[start]` (0-based): `key: …` lines and the
    indented lines that continue them, up to the first blank line or anything else."""
    end = start
    while end < len(lines):
        line = lines[end]
        if _OPTION.match(line) or (end > start and line[:1] in (" ", "\t") and line.strip()):
            end += 1
        else:
            break
    return end


def indent_options(lines: list[str]) -> list[str]:
    """Indent the option lines under each opener by four spaces: the form pymdownx Blocks reads as options.

    Authors write options flush left (docs/conventions.md#drills); hooks/drill_blocks.py runs this as a
    preprocessor after fences are stashed, so a `///` inside a code block is never touched."""
    out = list(lines)
    index = 0
    while index < len(out):
        opener = OPENER.match(out[index])
        index += 1
        if opener and _takes_options(opener["kind"]):
            end = option_span(out, index)
            out[index:end] = ["    " + line for line in out[index:end]]
            index = end
    return out


def find_drills(markdown: str) -> tuple[list[Drill], list[Problem]]:
    """The drills of a page (nested steps and cards as children) and what is wrong with their structure."""
    lines = markdown.split("\n")
    in_fence = {
        number
        for fence in find_fences(markdown)
        for number in range(fence.opening_line, (fence.closing_line or len(lines)) + 1)
    }
    drills: list[Drill] = []
    problems: list[Problem] = []
    stack: list[Drill] = []
    index = 0
    while index < len(lines):
        number, text = index + 1, lines[index]
        index += 1
        opener = None if number in in_fence else OPENER.match(text)
        closer = None if number in in_fence else CLOSER.match(text)
        if opener:
            drill = Drill(opener["kind"], (opener["title"] or "").strip(), number, len(opener["slashes"]))
            problems += _structure_problems(drill, stack[-1] if stack else None, opener["indent"])
            (stack[-1].children if stack else drills).append(drill)
            stack.append(drill)
            if _takes_options(drill.kind):
                end = option_span(lines, index)
                problems += _read_options(drill, list(enumerate(lines[index:end], start=number + 1)))
                index = end
        elif closer:
            slashes = len(closer["slashes"])
            if stack and stack[-1].slashes == slashes:
                stack.pop().end_line = number
            else:
                problems.append(Problem(number, f"`{'/' * slashes}` closes nothing here{_open_one(stack)}"))
        elif stack:
            stack[-1].body.append((number, text))
    for drill in stack:
        problems.append(
            Problem(
                drill.line,
                f"`{'/' * drill.slashes} {drill.kind}` is never closed: end it with a line `{'/' * drill.slashes}`",
            )
        )
    return drills, problems


def walk(drills: list[Drill]) -> Iterator[Drill]:
    """Every drill, nested ones right after their parent."""
    for drill in drills:
        yield drill
        yield from walk(drill.children)


def snippet_targets(drill: Drill) -> list[tuple[str, int, str]]:
    """(option, line, `path:section`) for each snippet a drill names (`code`, `fix`)."""
    return [
        (key, drill.line_of(key), drill.options[key])
        for key in ("code", "fix")
        if isinstance(drill.options.get(key), str)
    ]


def split_match_item(text: str) -> tuple[str, str] | None:
    """`nn.Linear :: an affine map` -> ("nn.Linear", "an affine map"); None without both sides."""
    found = _MATCH_ITEM.match(text.strip())
    if found is None or not found["item"].strip() or not (found["target"] or "").strip():
        return None
    return found["item"].strip(), found["target"].strip()


def graph_nodes(graph: dict[str, list[str] | None]) -> list[str]:
    """The nodes of a step-through `graph` (node -> the nodes it passes gradients to), in order of mention."""
    nodes: dict[str, None] = {}
    for source, targets in graph.items():
        nodes[str(source)] = None
        for target in targets or []:
            nodes[str(target)] = None
    return list(nodes)


def graph_layers(graph: dict[str, list[str] | None]) -> dict[str, int] | None:
    """Each node's depth: the longest path to it from a node nothing points at; None when there is a cycle."""
    nodes = graph_nodes(graph)
    edges = {node: [str(target) for target in graph.get(node) or []] for node in nodes}
    depth = dict.fromkeys(nodes, 0)
    for _ in nodes:
        changed = False
        for source in nodes:
            for target in edges[source]:
                if depth[target] <= depth[source]:
                    depth[target] = depth[source] + 1
                    changed = True
        if not changed:
            return depth
    return None


def _open_one(stack: list[Drill]) -> str:
    if not stack:
        return ""
    return f": the open `{stack[-1].kind}` (line {stack[-1].line}) closes with `{'/' * stack[-1].slashes}`"


def _takes_options(kind: str) -> bool:
    return bool(KINDS.get(kind, Kind((), None)).options)


def _structure_problems(drill: Drill, parent: Drill | None, indent: str) -> list[Problem]:
    problems = []
    if indent:
        problems.append(
            Problem(drill.line, "drills are written at the left margin, not indented (not inside panels or lists)")
        )
    kind = KINDS.get(drill.kind)
    if kind is None:
        tops = ", ".join(name for name, k in KINDS.items() if k.parent is None)
        problems.append(
            Problem(
                drill.line, f"unknown drill `{drill.kind}`: the drills are {tops} (steps and cards nest inside them)"
            )
        )
    elif kind.parent is None and parent is not None:
        problems.append(
            Problem(
                drill.line, f"`{drill.kind}` cannot sit inside `{parent.kind}` (line {parent.line}): close that first"
            )
        )
    elif kind.parent is not None and (parent is None or parent.kind != kind.parent):
        problems.append(Problem(drill.line, f"`{drill.kind}` belongs inside a `/// {kind.parent}` block"))
    if parent is not None and parent.slashes == drill.slashes:
        problems.append(
            Problem(
                drill.line,
                f"a nested block needs more slashes than its parent: write `{'/' * (parent.slashes + 1)} {drill.kind}`",
            )
        )
    return problems


def _read_options(drill: Drill, lines: list[tuple[int, str]]) -> list[Problem]:
    problems = []
    current = ""
    for number, text in lines:
        if found := _OPTION.match(text):
            current = found["key"]
            if current in drill.option_lines:
                problems.append(
                    Problem(number, f"option `{current}` is given twice (line {drill.option_lines[current]})")
                )
            drill.option_lines.setdefault(current, number)
        elif found := _NESTED_OPTION.match(text):
            drill.option_lines.setdefault(f"{current}.{found['key'].strip(chr(34) + chr(39))}", number)
    source = textwrap.dedent("\n".join(text for _, text in lines))
    try:
        loaded = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        number = lines[min(mark.line, len(lines) - 1)][0] if mark else drill.line
        reason = getattr(error, "problem", None) or "not valid YAML"
        problems.append(
            Problem(
                number,
                f"the options of `{drill.kind}` are not valid YAML ({reason}): write `key: value` lines right "
                "under the opener, quote text that holds `: ` or starts with a backtick, and leave a blank line "
                "before the body",
            )
        )
        loaded = {}
    drill.options = loaded if isinstance(loaded, dict) else {}
    return problems
