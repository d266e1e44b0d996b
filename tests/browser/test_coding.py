"""The coding round as a reader uses it: the notebook next to each page, a problem's spot-the-bug drill, and
the "I solved this" mark that the round's index page lists.

(Every coding page is also in the site-wide checks: own-host only, no console error, CSP, axe in both schemes.)
"""

from __future__ import annotations

import json

import pytest
from coding_labs import NOTEBOOK, practice_folders

from tests.snippet_files import ROOT

PAGES = [folder.name for folder in practice_folders(ROOT)]  # the pages that have problems


@pytest.mark.parametrize("name", PAGES)
def test_the_download_is_the_committed_practice_notebook(page, name: str) -> None:
    page.goto(f"coding/{name}/")
    link = page.locator(".lab-links a", has_text="Download the notebook")
    assert link.get_attribute("download") == f"coding-{name}.ipynb"
    with page.expect_download() as download:
        link.click()
    downloaded = download.value.path().read_text(encoding="utf-8")
    assert downloaded == (ROOT / "snippets" / "coding" / name / NOTEBOOK).read_text(encoding="utf-8")
    assert all(not cell.get("outputs") for cell in json.loads(downloaded)["cells"])
    colab = page.locator(".lab-links a", has_text="Open in Colab").get_attribute("href")
    assert colab.startswith("https://colab.research.google.com/github/")
    assert colab.endswith(f"/snippets/coding/{name}/{NOTEBOOK}")


def test_a_problems_drill_reveals_the_fix_and_its_solved_mark_reaches_the_index(page) -> None:
    page.goto("coding/attention/")
    drill = page.locator(".drill--spot").first
    drill.locator('button[data-line="9"]').click()
    assert drill.locator(".drill__feedback").inner_text().startswith("Yes: line 9 is the bug.")
    assert "device=q.device" in drill.locator(".drill__answer pre code").inner_text()
    toggle = page.locator(".progress-toggle--question", has_text="I solved this").first
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.goto("coding/")
    page.locator(".progress-item.is-done", has_text="C13").wait_for()
    assert page.console_errors == [] and page.foreign_requests == []
