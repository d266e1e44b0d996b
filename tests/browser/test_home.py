"""The home page starts a candidate: the ways in are on the first screen, and "Next" leads to Module 1."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

START = ("Start Module 1", "Rapid-fire review", "Practise by level")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_ways_in_are_above_the_fold(browser, site_url: str, width: int, height: int):
    context = browser.new_context(base_url=site_url, viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto("")
    for text in START:
        link = page.locator(".md-content a", has_text=text).first
        box = link.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, f"{text!r} at {box} on {width}×{height}"
    start = page.locator(".md-content a", has_text="Start Module 1").first.get_attribute("href")
    assert urlparse(start).path.endswith("/tensors/")  # instant navigation makes links absolute
    context.close()


def test_next_from_home_is_module_1_and_the_about_pages_come_last(page):
    page.goto("")
    assert urlparse(page.locator(".md-footer__link--next").get_attribute("href")).path.endswith("/tensors/")
    tabs = [" ".join(tab.split()) for tab in page.locator(".md-tabs__link").all_inner_texts()]
    assert (tabs[0], tabs[1], tabs[-1]) == ("Home", "Tensors", "About / Contribute")


def test_the_site_name_is_not_cut_on_a_phone(browser, site_url: str):
    context = browser.new_context(base_url=site_url, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto("")
    title = page.locator(".md-header__title .md-header__topic").first.locator(".md-ellipsis")
    assert title.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the site name is truncated"
    context.close()
