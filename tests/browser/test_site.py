"""The served site, as a reader uses it: search, panels, copy, source links, navigation, dark mode."""

from __future__ import annotations

import re

import pytest
from labs import lab_sources

from tests.browser.conftest import SCHEMES
from tests.snippet_files import ROOT, all_pages

LAB_PAGES = [f"{lab.parent.name}/lab" for lab in lab_sources(ROOT)]  # notebook pages from snippets/<chapter>/lab.py
PAGES = [p.relative_to(ROOT / "docs").with_suffix("").as_posix() for p in all_pages()] + LAB_PAGES


def url_of(page: str) -> str:
    page = re.sub(r"(^|/)index$", "", page)
    return f"{page}/" if page else ""


@pytest.mark.parametrize("media", SCHEMES)
@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_only_from_its_own_host_without_errors(page_audit, path: str, media: str) -> None:
    audit = page_audit(path, media)  # the one load of this page in this scheme, shared with test_csp and axe
    assert audit.foreign_requests == []
    assert audit.console_errors == []


@pytest.mark.search
def test_search_finds_a_question_by_its_words(page) -> None:
    page.goto("")
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially("storage offset", delay=20)
    first = page.locator(".md-search-result__item").first
    first.wait_for()
    assert "tensors/anatomy/" in first.locator("a").first.get_attribute("href")


def test_answer_panels_start_collapsed_and_open_on_click(page) -> None:
    page.goto(url_of("tensors/anatomy"))
    panel = page.locator("details", has_text="What a strong answer covers").first
    assert panel.get_attribute("open") is None
    panel.locator("summary").click()
    assert panel.get_attribute("open") is not None
    assert (
        page.locator("details", has_text="Where people lose the point").count()
        == page.locator("details", has_text="What a strong answer covers").count()
    )


def test_copy_button_copies_exactly_the_shown_snippet_section(page) -> None:
    page.goto(url_of("tensors/anatomy"))
    block = page.locator(".md-typeset .highlight").first
    block.hover()
    block.locator('button[data-md-type="copy"], button.md-clipboard').first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    source_link = page.locator(".snippet-source a").first.get_attribute("href")
    path, first, last = re.search(r"/blob/main/(snippets/[^#]+)#L(\d+)-L(\d+)", source_link).groups()
    shown = "\n".join((ROOT / path).read_text(encoding="utf-8").split("\n")[int(first) - 1 : int(last)])
    assert copied.strip() == shown.strip()
    assert "--8<--" not in copied and "_check" not in copied


def test_every_code_block_links_to_its_snippet_lines(page) -> None:
    page.goto(url_of("tensors/anatomy"))
    blocks = page.locator(".md-typeset .highlight").count()
    links = page.locator(".snippet-source a")
    assert links.count() == blocks
    for href in links.evaluate_all("links => links.map(a => a.href)"):
        assert re.fullmatch(r"https://github\.com/.+/blob/main/snippets/tensors/anatomy/\w+\.py#L\d+-L\d+", href)


def test_navigation_is_instant_and_keeps_the_page_alive(page) -> None:
    page.goto(url_of("tensors/index"))
    page.evaluate("window.__stillHere = true")
    page.locator(".md-content a", has_text="Tensor anatomy").first.click()
    # navigation.tracking may already have put the first section in view in the address (#learning-goals)
    page.wait_for_url(re.compile(r"tensors/anatomy/(#[\w-]+)?$"))
    page.locator("h1", has_text="Tensor anatomy").wait_for()
    assert page.evaluate("window.__stillHere") is True  # no full reload happened


def test_palette_toggle_switches_to_dark_and_back(page) -> None:
    page.goto("")
    scheme = lambda: page.evaluate("document.body.getAttribute('data-md-color-scheme')")  # noqa: E731
    seen = {scheme()}
    for _ in range(3):
        page.locator("form[data-md-component=palette] label:visible").first.click()
        seen.add(scheme())
    assert {"default", "slate"} <= seen
