from pathlib import Path
from types import SimpleNamespace

import pytest
from coding_labs import grader, practice_folders, practice_text, problem_files, problem_key
from lab_format import LabError, parse_lab
from labs import on_files, on_page_content
from mkdocs.structure.files import Files

KIT = '''"""Kit."""

# --8<-- [start:kit]
def call(fn, *args):
    return fn(*args)
# --8<-- [end:kit]
'''

PROBLEM = '''"""C{n} · Double it."""

# --8<-- [start:prompt]
def double(x):
    """Return 2 x."""
    raise NotImplementedError
# --8<-- [end:prompt]

# --8<-- [start:wrong]
def double(x):
    return x + 1
# --8<-- [end:wrong]

# --8<-- [start:solution]
def double(x):
    return 2 * x
# --8<-- [end:solution]


def grade(double):
    assert call(double, 3) == 6, "3 doubled is 6"
    return "passes"
'''


def project(tmp_path: Path, numbers=(10, 2)) -> Path:
    (tmp_path / "snippets" / "coding" / "index").mkdir(parents=True)
    (tmp_path / "snippets" / "coding" / "index" / "grading_kit.py").write_text(KIT)
    page = tmp_path / "snippets" / "coding" / "numerics"
    page.mkdir()
    for n in numbers:
        (page / f"p{n}.py").write_text(PROBLEM.format(n=n))
    (page / "helper.py").write_text('"""Not a problem."""\n')
    return page


def test_problems_are_found_by_their_docstring_and_ordered_by_number(tmp_path):
    page = project(tmp_path)
    assert problem_key(PROBLEM.format(n=13), "x.py") == (13, "Double it")
    assert problem_key('"""Something else."""', "x.py") is None
    assert [p.name for p in problem_files(page)] == ["p2.py", "p10.py"]  # 2 before 10, helper.py left out
    assert practice_folders(tmp_path) == [page]


def test_a_page_becomes_a_lab_kit_then_exercise_check_solution_per_problem(tmp_path):
    page = project(tmp_path)
    text = practice_text(page, tmp_path)
    cells = parse_lab(text, "numerics")
    kinds = ["markdown", "code"] + ["markdown", "exercise", "check", "solution"] * 2
    assert [cell.kind for cell in cells] == kinds
    assert cells[0].source.startswith("# Coding round · Numerics")
    assert cells[1].source == "def call(fn, *args):\n    return fn(*args)"  # the kit section, nothing else
    assert cells[2].source == "## C2 · Double it"
    assert "raise NotImplementedError" in cells[3].source
    assert cells[4].source.startswith("def grade(double):") and cells[4].source.endswith("print(grade(double))")
    assert cells[5].source == "def double(x):\n    return 2 * x"
    namespace: dict = {}
    for cell in cells[1:2] + cells[5:6] + cells[4:5]:  # kit, solution, check: the solved notebook passes
        exec(cell.source, namespace)


def test_format_mistakes_name_the_file_and_line():
    with pytest.raises(LabError, match=r"^p\.py:1: a problem file defines `def grade"):
        grader('"""C1 · x."""\n', "p.py")
    with pytest.raises(LabError, match=r"^p\.py:2: grade takes the prompt's entries"):
        grader('"""C1 · x."""\ndef grade():\n    pass\n', "p.py")
    outside = '"""C1 · x."""\nMESSAGE = "m"\ndef grade(f):\n    import torch\n    assert f(torch), MESSAGE\n'
    with pytest.raises(LabError, match=r"^p\.py:5: grade uses `MESSAGE`, which the notebook's check cell does not"):
        grader(outside, "p.py", {"call"})
    inside = '"""C1 · x."""\ndef grade(f, *a, **k):\n    def g(x, y=1):\n        return [z for z in (x, y, a, k)]\n'
    inside += "    try:\n        pass\n    except ValueError as error:\n        raise AssertionError(error)\n"
    assert grader(inside + "    return call(g, f)\n", "p.py", {"call"})[1] == ["f"]


def test_a_missing_section_names_the_file(tmp_path):
    page = project(tmp_path, numbers=(1,))
    (page / "p1.py").write_text(PROBLEM.format(n=1).replace("[start:solution]", "[start:other]").replace(
        "[end:solution]", "[end:other]"))
    with pytest.raises(LabError, match=r"snippets/coding/numerics/p1\.py:1: .*`solution` is missing"):
        practice_text(page, tmp_path)


def test_the_build_gets_the_notebook_next_to_the_page_and_the_page_gets_its_links(tmp_path):
    project(tmp_path)
    config = SimpleNamespace(
        config_file_path=str(tmp_path / "mkdocs.yml"),
        site_dir=str(tmp_path / "site"),
        use_directory_urls=True,
        extra={"source": {"repository": "https://github.com/o/r", "branch": "main"}},
    )
    (file,) = on_files(Files([]), config)
    assert file.src_uri == "coding/numerics/practice.ipynb" and file.url == "coding/numerics/practice.ipynb"
    assert Path(file.abs_src_path).is_file()
    page = SimpleNamespace(file=SimpleNamespace(src_uri="coding/numerics.md"), url="coding/numerics/")
    html = on_page_content("<h1>Numerics</h1><p>x</p>", page, config, None)
    assert 'href="practice.ipynb" download="coding-numerics.ipynb"' in html
    assert "blob/main/snippets/coding/numerics/practice.ipynb" in html
    other = SimpleNamespace(file=SimpleNamespace(src_uri="coding/index.md"), url="coding/")
    assert on_page_content("<h1>T</h1>", other, config, None) == "<h1>T</h1>"
