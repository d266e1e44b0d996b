"""Bad input stays harmless: whatever sits in localStorage — corrupt, of the wrong shape, or left by
another version of the site — is ignored and repaired, and the page works as if it were not there.

The site's only inputs are the reader's own browser storage: the progress marks (docs/javascripts/
drills.js, key `vpip.progress.v1`) and Material's settings (the palette), which Material reads
unguarded (docs/javascripts/storage-guard.js). Forms that could send anything: tests/test_site_policy.py.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import SAME_ORIGIN_DOCUMENT

STORE = "vpip.progress.v1"
PAGE = "tensors/anatomy/"


def plant(page, items: dict[str, str]) -> None:
    """Put `items` in the site's localStorage, then load PAGE afresh, as a returning reader would. They
    are put there from a document of the site without scripts (a page would build the search index
    first, in a test that searches, and its scripts could write the store before the test does)."""
    page.goto(SAME_ORIGIN_DOCUMENT)
    page.evaluate("(items) => Object.entries(items).forEach(([k, v]) => localStorage.setItem(k, v))", items)
    page.goto(PAGE)
    page.locator(".progress-toggle--question").first.wait_for()


def stored(page, key: str = STORE) -> str | None:
    return page.evaluate("(key) => localStorage.getItem(key)", key)


def question_keys(page) -> list[str]:
    return page.locator(".progress-toggle--question").evaluate_all(
        "(toggles) => toggles.map((t) => t.dataset.progressKey)"
    )


def pressed(page) -> list[str]:
    return page.locator(".progress-toggle--question").evaluate_all(
        "(toggles) => toggles.map((t) => t.getAttribute('aria-pressed'))"
    )


def still_works(page) -> None:
    """Marking and search work, and nothing was reported."""
    toggle = page.locator(".progress-toggle--question").first
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert list(json.loads(stored(page))) == question_keys(page)[:1]
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially("strides")
    page.locator(".md-search-result__item").first.wait_for()
    assert page.console_errors == [] and page.csp_violations == [] and page.foreign_requests == []


@pytest.mark.search  # `still_works` searches
@pytest.mark.parametrize(
    "value",
    [
        "{not json",
        "",
        "null",
        "42",
        '"a string"',
        '["tensors/anatomy/#q1"]',
        '{"tensors/anatomy/#q1": 20260101}',
        '{"tensors/anatomy/#q1": {"date": "2026-01-01"}}',
        '{"tensors/anatomy/#q1": "yesterday"}',
        '{"no-anchor-here": "2026-01-01"}',
    ],
    ids=[
        "not-json",
        "empty",
        "null",
        "number",
        "string",
        "array",
        "number-date",
        "object-date",
        "word-date",
        "key-without-anchor",
    ],
)
def test_a_corrupt_progress_store_is_ignored_and_reset(page, value: str) -> None:
    plant(page, {STORE: value})
    assert set(pressed(page)) == {"false"}  # nothing of it was taken for a mark
    assert stored(page) is None  # …and it was cleared, not left to fail again
    still_works(page)


def test_good_marks_survive_next_to_bad_ones(page) -> None:
    page.goto(PAGE)
    first, second, third = question_keys(page)[:3]
    marks = {first: "2026-01-02", second: 7, third: "2026-13-45x", "__proto__": "2026-01-02"}
    plant(page, {STORE: json.dumps(marks)})
    assert pressed(page)[:3] == ["true", "false", "false"]
    assert json.loads(stored(page)) == {first: "2026-01-02"}  # the store now holds only what is valid
    assert page.console_errors == []


@pytest.mark.search  # `still_works` searches
def test_the_stores_of_other_versions_are_removed(page) -> None:
    old = {"vpip.progress.v0": '{"tensors/anatomy/#q1": true}', "vpip.progress.v2": '{"schema": 2}'}
    plant(page, {**old, "unrelated.key": "kept"})
    assert stored(page, "vpip.progress.v0") is None and stored(page, "vpip.progress.v2") is None
    assert stored(page, "unrelated.key") == "kept"  # not the site's to touch
    still_works(page)


@pytest.mark.search  # `still_works` searches
@pytest.mark.parametrize("value", ["{not json", '{"index": 99, "color": 5}'], ids=["not-json", "wrong-shape"])
def test_a_corrupt_palette_setting_is_reset_and_the_page_works(page, value: str) -> None:
    page.goto("")
    key = page.evaluate("__md_scope.pathname + '.__palette'")  # where Material keeps it
    plant(page, {key: value})
    palette = json.loads(stored(page, key))  # Material wrote a good value again
    assert palette["color"]["scheme"] in {"default", "slate"}
    page.locator("form[data-md-component=palette] label:visible").first.click()
    still_works(page)
