"""Accessibility: axe-core (tests/browser/package.json, served from disk) at WCAG 2.2 AA on every page of
the site, with every collapsible panel open, and on the search dialog with results showing: zero serious
or critical violations, in the light and the dark scheme.

The scheme comes from the reader's system setting (Material's automatic palette), as it would for a
reader, not from a class set by the test. Each page is loaded once per scheme (the `page_audit` fixture):
the light load runs every WCAG 2.2 AA rule; the dark load runs the rules whose result depends on colours
(axe's "cat.color" rules), which is all that differs, because both loads render the same markup (checked
below for every page) and the dark scheme's CSS changes only colours. The drills before and after use,
and the progress marks, are audited in test_drills.py.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCHEMES, WCAG_22_AA, colour_rules, run_axe
from tests.browser.test_site import PAGES

__all__ = ["SCHEMES"]  # imported from here by older tests


@pytest.mark.parametrize("path", PAGES)
def test_every_page_meets_wcag_22_aa_in_the_light_scheme(page_audit, path: str) -> None:
    audit = page_audit(path, "light")
    assert audit.scheme == SCHEMES["light"]
    assert audit.axe_rules == [f"tags: {' '.join(WCAG_22_AA)}"]
    assert audit.axe == []


@pytest.mark.parametrize("path", PAGES)
def test_every_page_meets_the_colour_rules_in_the_dark_scheme(page_audit, path: str) -> None:
    audit = page_audit(path, "dark")
    assert audit.scheme == SCHEMES["dark"]
    assert {"color-contrast", "link-in-text-block"} <= set(audit.axe_rules)
    assert audit.axe == []


@pytest.mark.parametrize("path", PAGES)
def test_both_schemes_render_the_same_markup(page_audit, path: str) -> None:
    """What lets the dark pass skip the rules that do not depend on colours."""
    assert page_audit(path, "light").markup == page_audit(path, "dark").markup


def test_the_dark_pass_runs_axes_colour_rules_and_only_those(page) -> None:
    """axe-core 4.14 (package-lock.json) tags two WCAG 2.2 AA rules "cat.color"; an upgrade that adds one
    fails here, to be looked at."""
    page.goto("")
    rules = colour_rules(page)
    every = page.evaluate("(tags) => axe.getRules(tags).map((r) => r.ruleId)", WCAG_22_AA)
    assert sorted(rules) == ["color-contrast", "link-in-text-block"]
    assert set(rules) < set(every)


@pytest.mark.parametrize("media", SCHEMES)
def test_the_search_dialog_with_results_meets_wcag_22_aa(page, media: str) -> None:
    page.emulate_media(color_scheme=media)
    page.goto("")
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially("gradient accumulation")
    page.locator(".md-search-result__item").first.wait_for()
    page.wait_for_timeout(300)  # the dialog's fade-in
    assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEMES[media]
    if media == "light":
        assert run_axe(page, ".md-search", tags=WCAG_22_AA) == []
    else:
        assert run_axe(page, ".md-search", rules=colour_rules(page)) == []
