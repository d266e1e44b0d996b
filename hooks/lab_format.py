"""The practice labs' source format: `snippets/<chapter>/lab.py`, a jupytext percent-format notebook.

A lab is plain Python split into cells by `# %%` lines (`# %% [markdown]` for text). Exercises come as
three consecutive tagged cells:

    # %% tags=["exercise"]     the reader's starting point: runs, but is wrong or unfinished
    # %% tags=["check"]        asserts that fail on the exercise and pass once it is solved
    # %% tags=["solution"]     one correct answer: collapsed on the site, hidden in the notebook

Everything here is pure (text in, cells or notebook JSON out) and names the file and line of any
authoring mistake; hooks/labs.py feeds it, and the tests use it to run each lab solved and unsolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import jupytext
import nbformat

KINDS = ("exercise", "check", "solution")  # the only cell tags a lab uses, in the order they come
_MARKER = re.compile(r"^# %%(?!%)")  # a cell's first line: `# %%`, `# %% [markdown]`, `# %% tags=[…]`
_INSTALL = re.compile(r"\bpip\s+install\b|\bconda\s+install\b")


class LabError(ValueError):
    """A lab that breaks the format; the message names the file and line and says how to fix it."""


@dataclass(frozen=True)
class Cell:
    kind: str  # "markdown", "code", or one of KINDS
    source: str
    line: int  # the 1-based line of the cell's `# %%` marker in the lab file
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exercise:
    exercise: Cell
    check: Cell
    solution: Cell


def parse_lab(text: str, path: str) -> list[Cell]:
    """The lab's cells with their lines; raises LabError for a lab that breaks the format."""
    lines = text.split("\n")
    if not lines or not _MARKER.match(lines[0]):
        raise LabError(f"{path}:1: a lab starts with its first cell marker, `# %% [markdown]` (its title)")
    markers = [number for number, line in enumerate(lines, start=1) if _MARKER.match(line)]
    notebook = jupytext.reads(text, fmt="py:percent")
    if len(notebook.cells) != len(markers):  # jupytext splits on exactly these lines; guard the mapping
        raise LabError(f"{path}:1: found {len(markers)} `# %%` markers but {len(notebook.cells)} cells")
    cells = []
    for line, cell in zip(markers, notebook.cells, strict=True):
        tags = tuple(cell.metadata.get("tags", ()))
        unknown = [tag for tag in tags if tag not in KINDS]
        if unknown or len(tags) > 1:
            raise LabError(
                f"{path}:{line}: cell tags {list(tags)} — a cell takes at most one of {list(KINDS)}"
            )
        if cell.cell_type == "markdown" and tags:
            raise LabError(f"{path}:{line}: a markdown cell can't be tagged {tags[0]!r}; tag the code cell")
        kind = tags[0] if tags else cell.cell_type
        cells.append(Cell(kind, cell.source, line, tags))
    _check_layout(cells, path)
    return cells


def exercises(cells: list[Cell]) -> list[Exercise]:
    """Each exercise with its check and solution (parse_lab has checked they come in threes)."""
    return [
        Exercise(cell, cells[i + 1], cells[i + 2]) for i, cell in enumerate(cells) if cell.kind == "exercise"
    ]


def _check_layout(cells: list[Cell], path: str) -> None:
    first = cells[0]
    if first.kind != "markdown" or not first.source.startswith("# "):
        raise LabError(f"{path}:{first.line}: the first cell is markdown whose first line is the title, `# Lab · …`")
    for cell in cells:
        for offset, text in enumerate(cell.source.split("\n"), start=1):
            if cell.kind != "markdown" and _INSTALL.search(text):
                raise LabError(
                    f"{path}:{cell.line + offset}: labs install nothing — Colab and any torch >= 2.6 set-up "
                    "already have torch and torchvision; remove the install line"
                )
    expected = "exercise"  # the kind that may come next inside a triple; "exercise" means "any cell"
    for cell in cells:
        if expected != "exercise" and cell.kind != expected:
            raise LabError(
                f"{path}:{cell.line}: expected a `# %% tags=[\"{expected}\"]` cell here — each exercise cell "
                "is followed by its check cell, then its solution cell"
            )
        if expected == "exercise" and cell.kind in ("check", "solution"):
            raise LabError(
                f"{path}:{cell.line}: a {cell.kind} cell without an exercise before it — tag the cell that "
                'the reader edits `# %% tags=["exercise"]` and put it first'
            )
        expected = {"exercise": "check", "check": "solution"}.get(cell.kind, "exercise")
    if expected != "exercise":
        raise LabError(f"{path}:{cells[-1].line}: the lab ends inside an exercise: add its {expected} cell")
    if not any(cell.kind == "exercise" for cell in cells):
        raise LabError(f'{path}:1: a lab has at least one `# %% tags=["exercise"]` cell with its check and solution')


# Colab hides a cell's code only in its "form" view, which needs a `#@title` first line; JupyterLab reads
# `jupyter.source_hidden` instead. A solution cell carries both, so it stays hidden wherever it opens.
SOLUTION_TITLE = "#@title Solution (double-click to show the code)"


def notebook_json(text: str, path: str) -> str:
    """The `.ipynb` readers download and open in Colab: no outputs, stable cell ids, solutions hidden
    (a `#@title` line and `cellView: "form"` for Colab, `source_hidden` for JupyterLab)."""
    cells = parse_lab(text, path)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for number, cell in enumerate(cells):
        if cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        elif cell.kind == "solution":
            new = nbformat.v4.new_code_cell(f"{SOLUTION_TITLE}\n{cell.source}")
        else:
            new = nbformat.v4.new_code_cell(cell.source)
        new.id = f"cell-{number}"  # jupytext would pick random ids: every build a cache miss, every diff noise
        if cell.tags:
            new.metadata["tags"] = list(cell.tags)
        if cell.kind == "solution":
            new.metadata["jupyter"] = {"source_hidden": True}  # JupyterLab / Notebook 7: collapsed until clicked
            new.metadata["cellView"] = "form"  # Colab: only the cell's #@title shows until it is double-clicked
        notebook.cells.append(new)
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"
