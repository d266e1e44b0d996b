"""The rules a drill follows, checked on the page source so that a mistake fails the build naming page and line.

`drill_problems` is pure and unit-tested on strings. hooks/code_from_snippets.py runs it on every page
(with the same snippet rules as includes: the page's own folder, a named section, a file that exists),
and the contract test runs that check too. Each message says what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drill_syntax import KINDS, Drill, Problem, find_drills, graph_layers, graph_nodes, split_match_item, walk
from snippet_markup import Include, parse_target


@dataclass(frozen=True)
class Snippets:
    """How the checks see snippet files: the page's include rules, and the lines a section shows."""

    problems: Callable[[Include], list[str]]  # what is wrong with naming this section on this page ([] when fine)
    lines: Callable[[Include], list[str]]  # the shown lines of a section that exists


def drill_problems(markdown: str, snippets: Snippets) -> list[Problem]:
    drills, problems = find_drills(markdown)
    for drill in walk(drills):
        if drill.kind in KINDS:
            problems += _unknown_options(drill) + CHECKS[drill.kind](drill, snippets)
    return sorted(problems, key=lambda problem: problem.line)


def _spot_the_bug(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "a title") + _required(drill, "code", "bug", "fix")
    code, found = _section(drill, "code", snippets)
    problems += found + _section(drill, "fix", snippets)[1]
    bugs = _bug_lines(drill.options.get("bug"))
    if "bug" in drill.options and bugs is None:
        problems.append(
            Problem(drill.line_of("bug"), "`bug` is the buggy line's number, e.g. `bug: 5`, or a list: `bug: [5, 6]`")
        )
    if code is not None:
        for bug in bugs or []:
            problems += _line_problems(drill, "bug", bug, code, f"bug line {bug}")
    hints = drill.options.get("hints", {})
    if not isinstance(hints, dict):
        problems.append(
            Problem(drill.line_of("hints"), '`hints` maps line numbers to hints: `hints:` then lines like `  3: "…"`')
        )
        hints = {}
    for number, hint in hints.items():
        where = f"hints.{number}"
        if not isinstance(number, int) or isinstance(number, bool):
            problems.append(Problem(drill.line_of(where), f"hint key `{number}` is not a line number"))
            continue
        if code is not None:
            problems += _line_problems(drill, where, number, code, f"hint line {number}")
        if number in (bugs or []):
            problems.append(
                Problem(
                    drill.line_of(where),
                    f"line {number} is the bug: hints are for the wrong lines (the explanation covers the bug)",
                )
            )
        if not isinstance(hint, str) or not hint.strip():
            problems.append(Problem(drill.line_of(where), f"the hint for line {number} is empty"))
    if not drill.text():
        problems.append(
            Problem(
                drill.line,
                "spot-the-bug needs an explanation: Markdown after the options and a blank line, before `///`",
            )
        )
    return problems


def _step_through(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "a title") + _section(drill, "code", snippets)[1]
    graph = drill.options.get("graph")
    if graph is not None and not _is_graph(graph):
        problems.append(
            Problem(
                drill.line_of("graph"),
                "`graph` maps each node to the nodes it passes gradients to: `  MulBackward0: [AccumulateGrad(w)]`",
            )
        )
        graph = None
    elif graph is not None and graph_layers(graph) is None:
        problems.append(Problem(drill.line_of("graph"), "`graph` has a cycle: a backward graph never loops"))
        graph = None
    if "root" in drill.options:
        if not isinstance(drill.options["root"], str) or not drill.options["root"].isidentifier():
            problems.append(
                Problem(drill.line_of("root"), "`root` is the name of the tensor in `code` whose graph the steps walk")
            )
        if "code" not in drill.options or "graph" not in drill.options:
            problems.append(
                Problem(drill.line_of("root"), "`root` needs `code` (the snippet that builds the graph) and `graph`")
            )
    steps = [child for child in drill.children if child.kind == "step"]
    if len(steps) < 2:
        problems.append(Problem(drill.line, "a step-through needs at least two `//// step | Title` blocks"))
    problems += _stray_text(
        drill, "only `//// step | Title` blocks go inside a step-through: move this text into a step"
    )
    seen: dict[str, int] = {}
    for step in steps:
        nodes = step.options.get("nodes")
        if nodes is None:
            continue
        where = step.line_of("nodes")
        if graph is None:
            problems.append(Problem(where, "`nodes` highlights nodes of the step-through's `graph`, and it has none"))
        elif not isinstance(nodes, list) or not all(isinstance(node, str) for node in nodes):
            problems.append(Problem(where, "`nodes` is a list of graph nodes: `nodes: [MulBackward0]`"))
        else:
            known = graph_nodes(graph)
            for node in nodes:
                if node not in known:
                    problems.append(Problem(where, f"node `{node}` is not in the graph (it has: {', '.join(known)})"))
                elif node in seen:
                    problems.append(Problem(where, f"node `{node}` already runs in the step on line {seen[node]}"))
                seen.setdefault(node, where)
    return problems


def _step(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "its title")
    if not drill.text():
        problems.append(Problem(drill.line, "a step needs narration: the Markdown under `//// step | Title`"))
    return problems


def _match(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "a title")
    targets: dict[str, int] = {}
    for number, text in drill.body:
        if not text.strip():
            continue
        if not text.startswith("- "):
            problems.append(Problem(number, "only `- item :: target` lines go inside a match"))
            continue
        pair = split_match_item(text[2:])
        if pair is None:
            problems.append(Problem(number, "this match item has no target: write `- item :: what it matches`"))
            continue
        if pair[1] in targets:
            problems.append(
                Problem(
                    number, f"target `{pair[1]}` is used twice (line {targets[pair[1]]}): each target matches one item"
                )
            )
        targets.setdefault(pair[1], number)
    if len(targets) < 2:
        problems.append(Problem(drill.line, "a match needs at least two `- item :: target` lines"))
    return problems


def _flashcards(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "a title")
    if not any(child.kind == "card" for child in drill.children):
        problems.append(Problem(drill.line, "empty deck: add cards, each `//// card | Front` … `////`"))
    return problems + _stray_text(drill, "only `//// card | Front` blocks go inside a deck: move this text into a card")


def _card(drill: Drill, snippets: Snippets) -> list[Problem]:
    problems = _title(drill, "its front (the prompt)")
    if not drill.text():
        problems.append(
            Problem(drill.line, f"card `{drill.title}` has no back: write the answer under it, before `////`")
        )
    return problems


CHECKS: dict[str, Callable[[Drill, Snippets], list[Problem]]] = {
    "spot-the-bug": _spot_the_bug,
    "step-through": _step_through,
    "step": _step,
    "match": _match,
    "flashcards": _flashcards,
    "card": _card,
}


def _title(drill: Drill, what: str) -> list[Problem]:
    if drill.title:
        return []
    return [Problem(drill.line, f"`{drill.kind}` needs {what} after `|`: `{'/' * drill.slashes} {drill.kind} | …`")]


def _unknown_options(drill: Drill) -> list[Problem]:
    allowed = KINDS[drill.kind].options
    return [
        Problem(drill.line_of(key), f"unknown option `{key}` for {drill.kind} (it takes: {', '.join(allowed)})")
        for key in drill.options
        if key not in allowed
    ]


def _required(drill: Drill, *keys: str) -> list[Problem]:
    return [Problem(drill.line, f"{drill.kind} needs the option `{key}:`") for key in keys if key not in drill.options]


def _section(drill: Drill, key: str, snippets: Snippets) -> tuple[list[str] | None, list[Problem]]:
    """The lines of the section an option names, or what is wrong with it."""
    if key not in drill.options:
        return None, []
    value = drill.options[key]
    include = parse_target(value) if isinstance(value, str) else None
    if include is None:
        return None, [
            Problem(
                drill.line_of(key),
                f"`{key}` names a snippet section: `{key}: snippets/<chapter>/<page>/<file>.py:<section>`",
            )
        ]
    found = snippets.problems(include)
    if found:
        return None, [Problem(drill.line_of(key), f"`{key}`: {message}") for message in found]
    return snippets.lines(include), []


def _bug_lines(value: object) -> list[int] | None:
    bugs = value if isinstance(value, list) else [value]
    if bugs and all(isinstance(bug, int) and not isinstance(bug, bool) for bug in bugs):
        return bugs
    return None


def _line_problems(drill: Drill, key: str, number: int, code: list[str], what: str) -> list[Problem]:
    target = drill.options["code"]
    if not 1 <= number <= len(code):
        return [Problem(drill.line_of(key), f"{what} does not exist: {target} shows {len(code)} lines")]
    if not code[number - 1].strip():
        return [Problem(drill.line_of(key), f"{what} is blank in {target}: count the lines of the section as shown")]
    return []


def _stray_text(drill: Drill, message: str) -> list[Problem]:
    return [Problem(number, message) for number, text in drill.body if text.strip()][:1]


def _is_graph(graph: object) -> bool:
    return isinstance(graph, dict) and all(
        isinstance(source, str)
        and (targets is None or (isinstance(targets, list) and all(isinstance(t, str) for t in targets)))
        for source, targets in graph.items()
    )
