"""How the tests run a lab (hooks/lab_format.py): solved, in a real Jupyter kernel, and each exercise unsolved.

- solved: every exercise cell replaced by its solution, then its check — the notebook a reader ends
  with — executed top to bottom by nbclient in a fresh python3 kernel, as Jupyter or Colab would.
- unsolved: for exercise N, the cells before it (earlier exercises solved), exercise N as shipped, then
  its check, executed in this process; the check must fail with AssertionError, so an exercise can't
  silently become trivial (or fail for a reason other than its own asserts).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import nbclient
import nbformat
from lab_format import Cell, exercises

from tests.run_code import current_apis_only

KERNEL_TIMEOUT_S = 300  # per cell: a hung cell fails the test instead of blocking the suite


def solved_cells(cells: list[Cell]) -> list[Cell]:
    """The lab with each exercise replaced by its solution (and the solution cell after the check dropped)."""
    solution_for = {item.exercise.line: item.solution for item in exercises(cells)}
    solutions = {item.solution.line for item in exercises(cells)}
    return [solution_for.get(cell.line, cell) for cell in cells if cell.line not in solutions]


def unsolved_cells(cells: list[Cell], number: int) -> list[Cell]:
    """The code up to exercise `number` (0-based) unsolved, ending with its check."""
    target = exercises(cells)[number]
    before = solved_cells(cells[: cells.index(target.exercise)])
    return [*before, target.exercise, target.check]


def run_in_kernel(cells: list[Cell], cwd: Path) -> nbformat.NotebookNode:
    """Execute the code cells in a fresh python3 kernel; a raising cell raises CellExecutionError."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell.source) for cell in cells if cell.kind != "markdown"]
    client = nbclient.NotebookClient(
        notebook, kernel_name="python3", timeout=KERNEL_TIMEOUT_S, resources={"metadata": {"path": str(cwd)}}
    )
    return client.execute()


def run_here(cells: list[Cell], path: str) -> None:
    """Execute the code cells in order in one fresh namespace; tracebacks point at the lab file's lines.

    A UserWarning is part of what an unsolved exercise shows its reader (torch's hint about a non-leaf's
    `.grad`, Dynamo's graph-break notice): recorded, not reported. Deprecations still fail.
    """
    namespace: dict = {"__name__": "__main__"}
    with warnings.catch_warnings(record=True), current_apis_only(), contextlib.redirect_stdout(io.StringIO()):
        for cell in cells:
            if cell.kind != "markdown":
                exec(compile("\n" * cell.line + cell.source, path, "exec"), namespace)
