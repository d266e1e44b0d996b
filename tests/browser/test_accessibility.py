"""Accessibility: axe-core (tests/browser/package.json, served from disk) at WCAG 2.2 AA on every page of
the site, in the light and the dark scheme, with every collapsible panel open, and on the search
dialog with results showing: zero serious or critical violations.

The scheme comes from the reader's system setting (Material's automatic palette), as it would for a
reader, not from a class set by the test. The drills before and after use, and the progress marks, are
audited in test_drills.py.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import WCAG_22_AA
from tests.browser.test_site import PAGES, url_of

SCHEMES = {"light": "default", "dark": "slate"}  # prefers-color-scheme -> Material's scheme


def open_every_panel(page) -> None:
    page.evaluate("document.querySelectorAll('details').forEach((panel) => { panel.open = true; })")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_meets_wcag_22_aa_in_both_schemes(page, axe_violations, path: str) -> None:
    found = {}
    for media, scheme in SCHEMES.items():
        page.emulate_media(color_scheme=media)
        page.goto(url_of(path))
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.body.dataset.mdColorScheme") == scheme
        open_every_panel(page)
        found[scheme] = axe_violations(tags=WCAG_22_AA)
    assert found == {"default": [], "slate": []}


@pytest.mark.parametrize("media", SCHEMES)
def test_the_search_dialog_with_results_meets_wcag_22_aa(page, axe_violations, media: str) -> None:
    page.emulate_media(color_scheme=media)
    page.goto("")
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially("gradient accumulation")
    page.locator(".md-search-result__item").first.wait_for()
    page.wait_for_timeout(300)  # the dialog's fade-in
    assert axe_violations(".md-search", tags=WCAG_22_AA) == []
