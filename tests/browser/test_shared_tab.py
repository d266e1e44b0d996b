"""The `page` fixture hands every test the session's one tab (tests/browser/conftest.py): each test must
still start where a new tab starts. A test that leaves every kind of state behind is followed by one
that finds none of it, measured side by side with a tab in a context of its own."""

from __future__ import annotations

import pytest

from tests.browser.conftest import reset_tab

PAGE = "tensors/anatomy/"
# Everything a test could leave behind in the tab or its context, as the next test would see it.
STATE = """async () => ({
    local: localStorage.length,
    session: sessionStorage.length,
    cookies: document.cookie,
    clipboard: await navigator.clipboard.readText(),
    print: matchMedia("print").matches,
    dark: matchMedia("(prefers-color-scheme: dark)").matches,
    reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
    forcedColors: matchMedia("(forced-colors: active)").matches,
    size: [innerWidth, innerHeight],
    scheme: document.body.dataset.mdColorScheme,
})"""
HELD_SHIFT = "() => { window.__shift = null; addEventListener('keydown', (e) => { window.__shift = e.shiftKey; }); }"


def seen(page) -> dict:
    page.goto(PAGE)
    state = page.evaluate(STATE)
    page.evaluate(HELD_SHIFT)
    page.keyboard.press("x")
    state["shift held"] = page.evaluate("window.__shift")
    state["tabs"] = len(page.context.pages)
    state["recorded"] = [page.console_errors, page.csp_violations, page.foreign_requests]
    return state


def leave_a_mess(tab) -> None:
    tab.goto(PAGE)
    tab.evaluate(
        "() => { localStorage.setItem('vpip.progress.v1', '{not json'); sessionStorage.setItem('now', '1');"
        " document.cookie = 'left=1'; return navigator.clipboard.writeText('left over'); }"
    )
    tab.emulate_media(media="print", color_scheme="dark", reduced_motion="reduce", forced_colors="active")
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.keyboard.down("Shift")
    tab.mouse.move(200, 200)
    tab.mouse.down()
    tab.context.new_page()  # a tab the test opened (a link with target=_blank)
    tab.evaluate("console.error('left over')")
    tab.evaluate("fetch('https://example.com/').catch(() => {})")  # blocked and recorded


def test_a_test_finds_the_shared_tab_as_a_new_tab_starts(shared_tab, fresh_page, site_url: str) -> None:
    leave_a_mess(shared_tab)
    assert shared_tab.console_errors and len(shared_tab.context.pages) == 2  # the mess is real
    reset_tab(shared_tab, site_url)
    assert shared_tab.url == "about:blank"
    reused, new = seen(shared_tab), seen(fresh_page)
    assert reused == new  # what it keeps: its back button's history, and the browser's HTTP cache
    assert new["recorded"] == [[], [], []] and new["tabs"] == 1 and new["clipboard"] == ""


@pytest.mark.parametrize("change", ["context.add_init_script", "context.route", "page.add_init_script", "page.route"])
def test_a_change_that_would_outlive_the_test_is_refused(page, change: str) -> None:
    owner, method = change.split(".")
    target = page.context if owner == "context" else page
    with pytest.raises(RuntimeError, match="use the `fresh_page` fixture"):
        getattr(target, method)("**/*")
