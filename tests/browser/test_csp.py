"""Privacy and the Content-Security-Policy, in Chromium with the policy enforced (never `bypass_csp`).

Every page loads under its own policy (hooks/content_security_policy.py) with zero violations and zero
requests to another host, in both colour schemes (checked on the one load per page and scheme that
test_site.py and the axe audit share); search, instant navigation, code copy, the palette and every kind of drill
work under it; and what an attacker would inject (an inline script, an event handler, a tracking
pixel) is refused and reported.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import POLICY_META, SCHEMES
from tests.browser.test_site import PAGES


@pytest.fixture
def enforced(page):
    assert page.bypass_csp is False  # these tests are about the policy: it must be on
    yield page


def clean(page) -> None:
    assert page.csp_violations == []
    assert page.foreign_requests == []
    assert page.console_errors == []


@pytest.mark.parametrize("media", SCHEMES)
@pytest.mark.parametrize("path", PAGES)
def test_every_page_carries_its_policy_and_breaks_none_of_it(page_audit, path: str, media: str) -> None:
    audit = page_audit(path, media)  # the one load of this page in this scheme, shared with test_site and axe
    assert audit.policy is not None, "no Content-Security-Policy <meta> first in <head>"
    assert "script-src 'self' 'sha256-" in audit.policy and "unsafe" not in audit.policy
    assert audit.csp_violations == []
    assert audit.foreign_requests == []
    assert audit.console_errors == []


def test_a_request_to_another_host_is_recorded_and_never_reaches_it(page) -> None:
    """The check every page passes can fail: a document without the policy (the sitemap) asks another
    host for an image and a script, from the page and from a worker; each request is recorded, and fails
    before it leaves the browser."""
    failed = []
    page.goto("sitemap.xml")
    for url, start in [
        ("https://example.com/pixel.png", "new Image().src = url"),
        ("https://tracker.example/beacon", "new Worker(URL.createObjectURL(new Blob([`fetch('${url}')`])))"),
    ]:
        with page.context.expect_event("requestfailed", lambda request, url=url: request.url == url) as event:
            page.evaluate(f"(url) => {{ {start}; }}", url)
        failed.append((event.value.url, event.value.failure))  # the recorder listened first: it has run
    assert page.foreign_requests == ["https://example.com/pixel.png", "https://tracker.example/beacon"]
    assert sorted(url for url, _ in failed) == sorted(page.foreign_requests)
    assert {failure for _, failure in failed} == {"net::ERR_NAME_NOT_RESOLVED"}


def test_the_404_page_carries_its_policy_too(enforced) -> None:
    response = enforced.goto("no-such-page/")
    assert response.status == 404
    enforced.wait_for_load_state("networkidle")
    assert enforced.locator(POLICY_META).count() == 1
    assert enforced.locator("h1", has_text="404").count() == 1  # Material's 404 page, styled and scripted
    assert enforced.csp_violations == [] and enforced.foreign_requests == []
    assert all("404" in error for error in enforced.console_errors)  # only the missing page itself


@pytest.mark.search
def test_search_navigation_copy_palette_and_every_drill_work_under_the_policy(enforced) -> None:
    page = enforced
    page.goto("")
    page.evaluate("window.__stillHere = true")

    # search; the first result opens by instant navigation
    page.keyboard.press("/")
    page.locator(".md-search__input").press_sequentially("view vs reshape")
    page.locator(".md-search-result__item a", has_text="Tensor anatomy").first.click()
    page.wait_for_url(re.compile(r"tensors/anatomy/"))
    page.locator("h1#tensor-anatomy").wait_for()
    assert page.evaluate("window.__stillHere") is True  # no reload: instant navigation

    # code copy
    block = page.locator(".md-content .highlight").first
    block.hover()
    block.locator('button[data-md-type="copy"]').first.click()
    assert "import torch" in page.evaluate("navigator.clipboard.readText()")

    # the palette toggle
    page.locator("form[data-md-component=palette] label:visible").first.click()

    # every drill kind, on the page that shows one of each (reached by instant navigation too)
    page.locator(".md-tabs__link", has_text="About / Contribute").click()
    page.locator(".md-nav__link", has_text="Conventions").first.click()
    page.locator(".drill--cards.is-ready").wait_for()
    assert page.evaluate("window.__stillHere") is True
    page.locator('.drill--spot button[data-line="10"]').click()
    assert page.locator(".drill--spot .drill__answer").is_visible()
    page.locator(".drill--steps .drill-steps__next").click()
    assert page.locator(".drill--steps .drill-steps__counter").inner_text().startswith("Step 2 of")
    page.locator(".drill--match .drill-match__reveal").click()
    assert page.locator(".drill--match .drill__feedback").inner_text() == "All answers shown."
    page.locator(".drill--cards .drill-cards__reveal").click()
    page.locator(".drill--cards .drill-cards__got").click()
    assert page.locator(".drill--cards .drill-cards__counter").inner_text().startswith("Card 2 of")
    toggle = page.locator(".drill--spot .progress-toggle")
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"

    page.wait_for_load_state("networkidle")
    clean(page)


def test_the_search_form_never_submits(enforced) -> None:
    enforced.goto("tensors/")
    enforced.evaluate("document.querySelector('form[name=search]').requestSubmit()")
    enforced.wait_for_timeout(300)
    assert enforced.url.endswith("/tensors/")  # Material handles it in the page; nothing is sent
    clean(enforced)


def test_injected_scripts_handlers_and_trackers_are_refused_and_reported(enforced) -> None:
    page = enforced
    page.goto("tensors/anatomy/")
    page.wait_for_load_state("networkidle")
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.__injected = true";
            document.head.appendChild(script);
            document.body.insertAdjacentHTML("beforeend",
                '<button id="evil" onclick="window.__handler = true">x</button>'
                + '<img alt="" src="https://tracker.example/pixel.gif">');
            document.getElementById("evil").click();
        }"""
    )
    page.wait_for_timeout(300)
    assert page.evaluate("window.__injected") is None
    assert page.evaluate("window.__handler") is None
    reported = "\n".join(page.csp_violations)
    assert "script-src-elem blocked inline" in reported
    assert "script-src-attr blocked inline" in reported
    assert "img-src blocked https://tracker.example/pixel.gif" in reported
    assert page.foreign_requests == []  # the policy stopped the tracker before any request left
