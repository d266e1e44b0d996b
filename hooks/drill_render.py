"""Pure HTML pieces of the drills: ids, code lines as choices, a code block, and a step's graph diagram.

hooks/drill_blocks.py places these in the page; docs/javascripts/drills.js wires them up and
docs/stylesheets/drills.css styles them (with Material's colour variables, so dark mode follows).
Nothing here loads anything: the diagram is inline SVG drawn from the step-through's `graph`.
"""

from __future__ import annotations

import re
from html import escape

from drill_syntax import graph_layers, graph_nodes
from markdown.extensions.toc import slugify
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

_MARKUP = re.compile(r"[`*]|<[^>]*>")


def drill_id(title: str, taken: set[str]) -> str:
    """A page-unique anchor for a drill, made from its title as a heading's would be:
    `Spot the Bug: The Silent Killer` -> `spot-the-bug-the-silent-killer`, so pages can link to a drill.
    (The toc extension gives a heading with the same text another id, as it sees this one first.)"""
    base = slugify(_MARKUP.sub("", title), "-") or "drill"
    candidate, number = base, 1
    while candidate in taken:
        candidate = f"{base}_{number}"
        number += 1
    taken.add(candidate)
    return candidate


def highlighted_lines(lines: list[str]) -> list[str]:
    """Pygments HTML for each line, every line self-contained (its spans closed)."""
    lexer = PythonLexer(stripnl=False, ensurenl=True)
    html = highlight("\n".join(lines), lexer, HtmlFormatter(nowrap=True))
    return html.split("\n")[: len(lines)]


def line_choices(lines: list[str]) -> str:
    """Every non-blank line a button (`data-line` is its 1-based number); blank lines are spacers.
    The listing is one Tab stop (a roving tabindex): the first line has tabindex 0, the others -1, and
    drills.js moves the 0 with ↑/↓."""
    rows = []
    tabindex = "0"
    for number, html in enumerate(highlighted_lines(lines), start=1):
        if not lines[number - 1].strip():
            rows.append(
                f'<span class="drill-spot__line drill-spot__line--blank" aria-hidden="true">'
                f'<span class="drill-spot__no">{number}</span></span>'
            )
            continue
        rows.append(
            f'<button type="button" class="drill-spot__line" data-line="{number}" tabindex="{tabindex}">'
            f'<span class="drill-spot__no" aria-hidden="true">{number}</span>'
            f'<span class="drill-sr-only">Line {number}: </span>'
            f"<code>{html}</code></button>"
        )
        tabindex = "-1"
    return "".join(rows)


def code_block(lines: list[str]) -> str:
    """A code block in the markup of the site's other blocks (Material adds its copy button to it)."""
    return (
        '<div class="language-python highlight"><pre><span></span><code>'
        + "\n".join(highlighted_lines(lines))
        + "\n</code></pre></div>"
    )


# ---- the graph diagram of a step ----------------------------------------------------------------
_CHAR = 8  # px per character of the 13px monospace label
_BOX_HEIGHT = 34
_ROW_GAP = 42
_COLUMN_GAP = 20
_MARGIN = 6
_MARK = {"active": "▶ ", "done": "✓ ", "": ""}


def graph_svg(graph: dict[str, list[str] | None], active: list[str], done: list[str], label: str) -> str:
    """The graph drawn top-down from its root, `active` nodes marked as running now and `done` as run.

    States are told by a mark in the label (▶ running, ✓ done) and by the style, never by colour alone."""
    layers = graph_layers(graph) or {}
    nodes = graph_nodes(graph)
    width_of_box = max(len(node) + 2 for node in nodes) * _CHAR + 20
    slots = _positions(graph, nodes, layers, width_of_box + _COLUMN_GAP)
    left = min(x for x, _ in slots.values())
    place = {node: (x - left + _MARGIN, _MARGIN + row * (_BOX_HEIGHT + _ROW_GAP)) for node, (x, row) in slots.items()}
    width = max(x for x, _ in place.values()) + width_of_box + _MARGIN
    height = max(y for _, y in place.values()) + _BOX_HEIGHT + _MARGIN
    edges = []
    for source, targets in graph.items():
        for target in targets or []:
            edges.append(_edge(place[str(source)], place[str(target)], width_of_box))
    boxes = []
    for node in nodes:
        state = "active" if node in active else "done" if node in done else ""
        x, y = place[node]
        boxes.append(
            f'<g class="drill-graph__node{" is-" + state if state else ""}">'
            f'<rect x="{x:g}" y="{y:g}" width="{width_of_box}" height="{_BOX_HEIGHT}" rx="6"></rect>'
            f'<text x="{x + width_of_box / 2:g}" y="{y + _BOX_HEIGHT / 2:g}">{escape(_MARK[state] + node)}</text></g>'
        )
    description = _describe(graph, active, done, label)
    return (
        f'<svg class="drill-graph" viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
        f'role="img" aria-label="{escape(description)}">' + "".join(edges) + "".join(boxes) + "</svg>"
    )


def _positions(graph, nodes: list[str], layers: dict[str, int], slot: float) -> dict[str, tuple[float, int]]:
    """(x, row) of each node: row by depth, and each node as close to the middle of the nodes that point
    at it as its row's spacing allows (so a chain is drawn straight down)."""
    parents: dict[str, list[str]] = {node: [] for node in nodes}
    for source, targets in graph.items():
        for target in targets or []:
            parents[str(target)].append(str(source))
    x: dict[str, float] = {}
    for depth in sorted(set(layers.get(node, 0) for node in nodes)):
        row = [node for node in nodes if layers.get(node, 0) == depth]
        wanted = {
            node: sum(x[p] for p in parents[node] if p in x) / len([p for p in parents[node] if p in x])
            if any(p in x for p in parents[node])
            else position * slot
            for position, node in enumerate(row)
        }
        row.sort(key=lambda node: wanted[node])
        for position, node in enumerate(row):
            x[node] = wanted[node] if position == 0 else max(wanted[node], x[row[position - 1]] + slot)
        shift = sum(wanted[node] - x[node] for node in row) / len(row)  # keep the row centred where it wants to be
        for node in row:
            x[node] += shift
    return {node: (x[node], layers.get(node, 0)) for node in nodes}


def _edge(source: tuple[float, float], target: tuple[float, float], box: float) -> str:
    """A line from the bottom of `source` to the top of `target` with an arrowhead; an edge that skips a
    row bends out to the side, so it does not run through the boxes between."""
    x1, y1 = source[0] + box / 2, source[1] + _BOX_HEIGHT
    x2, y2 = target[0] + box / 2, target[1]
    skips = y2 - y1 > _ROW_GAP + 1
    # the arrow leaves from the last control point (straight: the start) towards the tip
    fx, fy = (x2 + box * 0.7, y2 - _ROW_GAP) if skips else (x1, y1)
    length = max(((x2 - fx) ** 2 + (y2 - fy) ** 2) ** 0.5, 1)
    ux, uy = (x2 - fx) / length, (y2 - fy) / length
    tip_x, tip_y = x2 - ux, y2 - uy
    base_x, base_y = tip_x - 8 * ux, tip_y - 8 * uy
    left = (base_x - 4 * uy, base_y + 4 * ux)
    right = (base_x + 4 * uy, base_y - 4 * ux)
    if skips:
        line = (
            f'<path d="M{x1:g},{y1:g} C{x1 + box * 0.7:g},{y1 + _ROW_GAP:g} {fx:g},{fy:g} '
            f'{base_x:.1f},{base_y:.1f}"></path>'
        )
    else:
        line = f'<line x1="{x1:g}" y1="{y1:g}" x2="{base_x:.1f}" y2="{base_y:.1f}"></line>'
    arrow = f"{tip_x:.1f},{tip_y:.1f} {left[0]:.1f},{left[1]:.1f} {right[0]:.1f},{right[1]:.1f}"
    return f'<g class="drill-graph__edge">{line}<polygon points="{arrow}"></polygon></g>'


def _describe(graph: dict[str, list[str] | None], active: list[str], done: list[str], label: str) -> str:
    arrows = "; ".join(f"{source} → {', '.join(targets)}" for source, targets in graph.items() if targets)
    parts = [f"{label}: {arrows}." if label else f"{arrows}."]
    if active:
        parts.append(f"Running now: {', '.join(active)}.")
    if done:
        parts.append(f"Already run: {', '.join(done)}.")
    return " ".join(parts)
