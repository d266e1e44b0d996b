"""QUIET_SEARCH (conftest.py): a test's tab builds Material's search index only when the test is marked
`search`; otherwise Material's search worker is an inert stand-in, every other worker is real, and a
search attempted anyway is reported, never silently empty."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SAME_ORIGIN_DOCUMENT

# On a document of the site's origin without a policy: which kind of object `new Worker` gives for
# Material's search worker (its URL from any page's config) and for another worker, and whether that
# other worker runs.
WORKERS = """async (search) => {
    const other = new Worker(URL.createObjectURL(new Blob(["postMessage('ran')"])));
    const ran = await new Promise((resolve) => other.addEventListener("message", (e) => resolve(e.data)));
    return {search: new Worker(search) instanceof Worker, other: other instanceof Worker, ran};
}"""


def material_search_worker(page) -> str:
    page.goto("")
    return page.evaluate("JSON.parse(document.getElementById('__config').textContent).search")


def workers(page) -> dict:
    url = material_search_worker(page)
    page.goto(SAME_ORIGIN_DOCUMENT)
    return page.evaluate(WORKERS, url)


def search_for(page, words: str) -> None:
    page.goto("tensors/anatomy/")
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially(words)


def test_a_tab_that_does_not_search_has_an_inert_search_worker_and_real_others(page) -> None:
    assert workers(page) == {"search": False, "other": True, "ran": "ran"}


@pytest.mark.search
def test_a_tab_marked_search_has_materials_real_search_worker(page) -> None:
    assert workers(page) == {"search": True, "other": True, "ran": "ran"}
    search_for(page, "storage offset")
    page.locator(".md-search-result__item").first.wait_for()
    assert page.console_errors == []


def test_a_search_in_a_test_not_marked_search_is_reported(page) -> None:
    search_for(page, "storage offset")
    page.wait_for_function("document.querySelector('.md-search__input').value === 'storage offset'")
    page.wait_for_timeout(100)  # Material posts the query on the key release
    assert any(re.search(r"search is off .*@pytest\.mark\.search", error) for error in page.console_errors)
    assert page.locator(".md-search-result__item").count() == 0
    page.console_errors.clear()


def test_fresh_pages_follow_the_same_rule(fresh_page) -> None:
    assert workers(fresh_page)["search"] is False
