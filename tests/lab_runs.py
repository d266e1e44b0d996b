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
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import nbclient
import nbformat
from lab_format import Cell, exercises

from tests.run_code import current_apis_only, untraced_environment

ROOT = Path(__file__).resolve().parents[1]
# A lab whose checks fork their ranks (as a notebook must: its functions cannot be pickled for spawn) needs
# what a reader's fresh kernel has: a process in which autograd has not run yet. A process forked after a
# backward cannot run backward (https://github.com/pytorch/pytorch/wiki/Autograd-and-Fork), and a test
# worker has run many. Such a lab's unsolved checks run in a fresh interpreter (`run_fresh`).
FORKS = 'start_method="fork"'
ASSERTION_FAILED = 3  # the fresh interpreter's exit code when the cells raised AssertionError

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
        notebook,
        kernel_name="python3",
        timeout=KERNEL_TIMEOUT_S,
        resources={"metadata": {"path": str(cwd)}},
        shutdown_kernel="immediate",  # the cells have run; a graceful exit after torch took ~2 s a lab
    )
    return client.execute(env=untraced_environment())


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


def run_fresh(cells: list[Cell], path: str, cwd: Path) -> None:
    """`run_here` in a fresh interpreter (see FORKS): an AssertionError there is raised here, with its message;
    any other failure fails with the child's traceback."""
    cells_json = json.dumps([[cell.kind, cell.source, cell.line] for cell in cells])
    env = untraced_environment(PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "hooks")]))
    done = subprocess.run(
        [sys.executable, "-m", "tests.lab_runs", path],
        input=cells_json,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=KERNEL_TIMEOUT_S,
    )
    if done.returncode == ASSERTION_FAILED:
        raise AssertionError(done.stdout.strip())
    if done.returncode != 0:
        raise RuntimeError(f"{path}: the cells failed in a fresh interpreter:\n{done.stderr[-4000:]}")


if __name__ == "__main__":  # run_fresh's child: the cells as JSON on stdin, the lab's path as the argument
    try:
        run_here([Cell(kind, source, line) for kind, source, line in json.load(sys.stdin)], sys.argv[1])
    except AssertionError as error:
        print(error)
        sys.exit(ASSERTION_FAILED)
