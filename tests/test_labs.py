"""The practice labs (snippets/<chapter>/lab.py) and the coding round's practice notebooks (one per page,
generated from snippets/coding/<page>/: hooks/coding_labs.py): each runs solved, each exercise fails until
solved, and the committed notebook is what the build generates.

Test ids are the lab paths: `pytest tests/test_labs.py -k tensors` runs one module's lab,
`-k coding/attention` one coding page's notebook.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coding_labs import NOTEBOOK as PRACTICE
from coding_labs import practice_folders
from lab_format import SOLUTION_TITLE, exercises, notebook_json, parse_lab
from labs import lab_sources, lab_text, notebook_sources

from tests.lab_runs import FORKS, run_fresh, run_here, run_in_kernel, solved_cells, unsolved_cells
from tests.snippet_files import ROOT, repo_relative

NOTEBOOKS = dict(notebook_sources(ROOT))  # source (a lab.py, or a coding page's folder) -> committed .ipynb
LABS = list(NOTEBOOKS)
CHAPTERS = [path.name for path in (ROOT / "docs").iterdir() if (path / "index.md").is_file()]
CODING = "coding"  # the coding round: a notebook per page instead of one lab


def cells_of(path: Path):
    return parse_lab(lab_text(path, ROOT), repo_relative(path))


def test_every_module_has_a_lab() -> None:
    assert sorted(lab.parent.name for lab in lab_sources(ROOT)) == sorted(set(CHAPTERS) - {CODING})


def test_every_coding_page_with_problems_has_a_notebook() -> None:
    pages = sorted(path.stem for path in (ROOT / "docs" / CODING).glob("*.md") if path.stem != "index")
    with_problems = [folder.name for folder in practice_folders(ROOT)]
    assert with_problems and set(with_problems) <= set(pages)
    for folder in practice_folders(ROOT):
        assert (folder / PRACTICE).is_file(), f"{repo_relative(folder)}: no {PRACTICE}: run `make labs`"


@pytest.mark.parametrize("path", LABS, ids=repo_relative)
def test_lab_runs_solved_in_a_kernel(path: Path, tmp_path: Path) -> None:
    run_in_kernel(solved_cells(cells_of(path)), cwd=tmp_path)


@pytest.mark.parametrize("path", LABS, ids=repo_relative)
def test_each_exercise_fails_its_check_until_solved(path: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    cells = cells_of(path)
    forks = FORKS in lab_text(path, ROOT)
    for number, item in enumerate(exercises(cells)):
        try:
            if forks:
                run_fresh(unsolved_cells(cells, number), repo_relative(path), tmp_path)
            else:
                run_here(unsolved_cells(cells, number), repo_relative(path))
        except AssertionError:
            continue  # the check caught the unsolved exercise, as it must
        pytest.fail(
            f"{repo_relative(path)}:{item.exercise.line}: exercise {number + 1} passes its check as shipped — "
            "make the exercise cell wrong or unfinished, or make the check test what the task asks"
        )


@pytest.mark.parametrize("path", LABS, ids=repo_relative)
def test_committed_notebook_is_the_lab(path: Path) -> None:
    """Colab opens the committed `.ipynb`: it must be exactly what the build generates from the lab."""
    committed = NOTEBOOKS[path]
    expected = notebook_json(lab_text(path, ROOT), repo_relative(path))
    assert committed.is_file() and committed.read_text(encoding="utf-8") == expected, (
        f"{repo_relative(committed)} is missing or older than {repo_relative(path)}: run `make labs`"
    )


@pytest.mark.parametrize("path", LABS, ids=repo_relative)
def test_committed_notebook_hides_the_solutions_in_colab_and_jupyterlab(path: Path) -> None:
    """Colab hides code only in a cell's form view (`cellView: "form"` and a `#@title` first line);
    JupyterLab reads `jupyter.source_hidden`. Every solution has both, and no other cell is hidden."""
    committed = NOTEBOOKS[path]
    notebook = json.loads(committed.read_text(encoding="utf-8"))
    solutions = [cell for cell in notebook["cells"] if "solution" in cell["metadata"].get("tags", [])]
    assert len(solutions) == len(exercises(cells_of(path))) > 0
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        hidden = (cell["metadata"].get("cellView"), cell["metadata"].get("jupyter", {}).get("source_hidden"))
        if cell in solutions:
            assert hidden == ("form", True), f"{repo_relative(committed)}: {cell['id']} is not hidden: run `make labs`"
            assert source.startswith(SOLUTION_TITLE + "\n"), f"{repo_relative(committed)}: {cell['id']} has no #@title"
        else:
            assert hidden == (None, None), f"{repo_relative(committed)}: {cell['id']} is hidden but is no solution"
