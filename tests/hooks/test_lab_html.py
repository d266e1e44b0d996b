"""hooks/lab_html.py against the HTML mkdocs-jupyter really produces for a small lab."""

import pytest
from bs4 import BeautifulSoup
from lab_format import notebook_json
from lab_html import NotebookHTMLError, insert_after_title, lab_links, tidy_notebook
from mkdocs_jupyter.convert import nb2html

from tests.hooks.test_lab_format import LAB


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> str:
    notebook = tmp_path_factory.mktemp("lab") / "lab.ipynb"
    notebook.write_text(notebook_json(LAB, "lab.py"), encoding="utf-8")
    return nb2html(str(notebook), execute=False)


def test_only_the_cells_remain_without_inline_style_or_script(rendered):
    assert "<style" in rendered and "<script" in rendered and "cdnjs" in rendered  # what mkdocs-jupyter emits
    tidy = tidy_notebook(rendered, "lab.py")
    for gone in ("<style", "<script", "style=", "cdnjs", "clipboard-copy", "jp-", "highlight-ipynb"):
        assert gone not in tidy
    assert len(tidy) < len(rendered) / 20


def test_code_cells_become_material_code_blocks_in_order(rendered):
    soup = BeautifulSoup(tidy_notebook(rendered, "lab.py"), "html.parser")
    blocks = soup.select("div.language-python.highlight > pre > code")
    assert [block.get_text().split("\n")[0] for block in blocks] == [
        "import math", "def double(x):", 'assert double(2) == 4, "double(2) should be 4"', "def double(x):",
    ]
    assert soup.select_one("code .kn").get_text() == "import"  # Pygments classes, styled by Material


def test_exercise_and_check_are_labelled_and_the_solution_is_collapsed(rendered):
    soup = BeautifulSoup(tidy_notebook(rendered, "lab.py"), "html.parser")
    assert "edit this cell" in soup.select_one(".lab-cell--exercise .lab-cell__label").get_text()
    assert "fails until" in soup.select_one(".lab-cell--check .lab-cell__label").get_text()
    solution = soup.select_one("details.lab-solution")
    assert solution.summary.get_text() == "Solution" and not solution.has_attr("open")
    assert "2 * x" in solution.get_text()


def test_headings_keep_their_ids_with_materials_permalink(rendered):
    soup = BeautifulSoup(tidy_notebook(rendered, "lab.py"), "html.parser")
    heading = soup.select_one("h2")
    assert heading["id"] == "exercise-1"
    assert heading.a["class"] == ["headerlink"] and heading.a["href"] == "#exercise-1"


def test_outputs_or_an_unknown_shape_fail_loudly(rendered):
    with pytest.raises(NotebookHTMLError, match="lab.py: no notebook cells"):
        tidy_notebook("<p>nothing</p>", "lab.py")
    with_output = rendered.replace('<div class="jp-Cell-inputWrapper"', '<div class="jp-OutputArea-output"></div>'
                                   '<div class="jp-Cell-inputWrapper"', 2)
    with pytest.raises(NotebookHTMLError, match="has outputs"):
        tidy_notebook(with_output, "lab.py")


def test_links_download_the_notebook_and_open_the_committed_copy_in_colab():
    html = lab_links("lab.ipynb", "tensors-lab.ipynb", "snippets/tensors/lab.ipynb", "https://github.com/o/r/", "main")
    links = BeautifulSoup(html, "html.parser").select("a")
    assert (links[0]["href"], links[0]["download"]) == ("lab.ipynb", "tensors-lab.ipynb")
    assert links[1]["href"] == "https://colab.research.google.com/github/o/r/blob/main/snippets/tensors/lab.ipynb"
    assert (links[1]["target"], links[1]["rel"]) == ("_blank", ["noopener"])  # Colab opens beside the guide
    assert links[1].get_text() == "Open in Colab (opens in a new tab)"
    with pytest.raises(ValueError, match="GitHub URL"):
        lab_links("lab.ipynb", "x.ipynb", "snippets/x/lab.ipynb", "https://gitlab.com/o/r", "main")


def test_the_links_go_right_under_the_title():
    assert insert_after_title("<h1>T</h1><p>x</p>", "<nav/>") == "<h1>T</h1>\n<nav/><p>x</p>"
    assert insert_after_title("<p>x</p>", "<nav/>") == "<nav/>\n<p>x</p>"


def test_the_status_line_claims_only_what_a_report_says():
    from lab_html import lab_status

    assert "Unverified build" in lab_status([], "")
    line = lab_status(['<span class="verified">✓ CPU · torch 2.14.1</span>'], "2026-11-30")
    assert line.startswith('<p class="verification-status">Verified: <span')
    assert "every check failed on its unsolved exercise (2026-11-30)" in line
