"""The lab pages as a reader uses them: download the notebook, open it in Colab, reveal a solution, copy a cell.

(Every lab page is also in the site-wide checks: own-host only, no console error, CSP, axe in both schemes.)
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from lab_format import parse_lab

from tests.browser.test_site import LAB_PAGES, url_of
from tests.snippet_files import ROOT


def test_every_module_shows_its_lab_in_the_navigation(page) -> None:
    page.goto("")
    hrefs = page.locator("nav.md-nav a.md-nav__link").evaluate_all("links => links.map(a => a.href)")
    assert sorted({re.search(r"/(\w+)/lab/$", h).group(1) for h in hrefs if h.endswith("/lab/")}) == sorted(
        lab.split("/")[0] for lab in LAB_PAGES
    )


@pytest.mark.parametrize("path", LAB_PAGES)
def test_the_download_is_the_committed_notebook(page, path: str) -> None:
    page.goto(url_of(path))
    link = page.locator(".lab-links a", has_text="Download the notebook")
    chapter = path.split("/")[0]
    assert link.get_attribute("download") == f"{chapter}-lab.ipynb"
    with page.expect_download() as download:
        link.click()
    downloaded = download.value.path().read_text(encoding="utf-8")
    committed = ROOT / "snippets" / chapter / "lab.ipynb"
    assert downloaded == committed.read_text(encoding="utf-8")
    notebook = json.loads(downloaded)
    assert notebook["nbformat"] == 4 and all(not cell.get("outputs") for cell in notebook["cells"])


@pytest.mark.parametrize("path", LAB_PAGES)
def test_open_in_colab_points_at_the_committed_notebook_on_github(page, path: str) -> None:
    page.goto(url_of(path))
    link = page.locator(".lab-links a", has_text="Open in Colab")
    href = link.get_attribute("href")
    # Colab opens beside the guide, not in its place (and cannot reach back through window.opener)
    assert (link.get_attribute("target"), link.get_attribute("rel")) == ("_blank", "noopener")
    colab = r"https://colab\.research\.google\.com/github/[\w.-]+/[\w.-]+/blob/main/"
    match = re.fullmatch(colab + r"(snippets/\w+/lab\.ipynb)", href)
    assert match, href
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", match.group(1)], cwd=ROOT, capture_output=True)
    assert (ROOT / match.group(1)).is_file() and tracked.returncode == 0, f"{match.group(1)} is not committed"


def test_solutions_start_collapsed_and_open_on_click(page) -> None:
    path = LAB_PAGES[0]
    page.goto(url_of(path))
    chapter = path.split("/")[0]
    cells = parse_lab((ROOT / "snippets" / chapter / "lab.py").read_text(encoding="utf-8"), "lab.py")
    solutions = page.locator("details.lab-solution")
    assert solutions.count() == sum(cell.kind == "solution" for cell in cells)
    first = solutions.first
    assert first.get_attribute("open") is None and not first.locator("code").is_visible()
    first.locator("summary").click()
    assert first.locator("code").is_visible()
    assert page.locator(".lab-cell--exercise").count() == page.locator(".lab-cell--check").count() == solutions.count()


def test_a_copied_cell_is_exactly_the_cell(page) -> None:
    path = LAB_PAGES[0]
    page.goto(url_of(path))
    block = page.locator(".lab-cell--exercise .highlight").first
    block.hover()
    block.locator('button[data-md-type="copy"], button.md-clipboard').first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    cells = parse_lab((ROOT / "snippets" / path.split("/")[0] / "lab.py").read_text(encoding="utf-8"), "lab.py")
    first_exercise = next(cell for cell in cells if cell.kind == "exercise")
    assert copied.strip() == first_exercise.source.strip()
