"""Serve the built site on its local port and drive it with headless Chromium (no `playwright install`)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.browser.chromium import INSTRUCTION, find_chromium
from tests.conftest import Build

# axe-core comes from npm (tests/browser/package.json); its README and locales are not tests.
collect_ignore = ["node_modules"]
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in item.nodeid:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def site_url(built_site: Build) -> Iterator[str]:
    assert built_site.returncode == 0, built_site.log
    port = urlparse(built_site.url).port
    handler = functools.partial(QuietHandler, directory=str(built_site.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield built_site.url
    server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="session")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    executable = find_chromium()
    if executable is None:
        pytest.exit(INSTRUCTION, returncode=1)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site_url: str):
    """A fresh page that records every request to another host and every console error (and blocks them)."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"], base_url=site_url)
    foreign: list[str] = []
    errors: list[str] = []
    own = urlparse(site_url).netloc

    def route(route) -> None:
        if urlparse(route.request.url).netloc == own or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.foreign_requests = foreign
    page.console_errors = errors
    yield page
    context.close()


@pytest.fixture
def axe_violations(page):
    """Run axe-core (served from disk, never a CDN) on the page: the serious and critical violations
    inside `selector`, as "rule: target" lines."""

    def run(selector: str = "body") -> list[str]:
        if not AXE.is_file():
            pytest.fail("axe-core is missing: run `npm ci --prefix tests/browser` (make test does)")
        if not page.evaluate("Boolean(window.axe)"):
            page.add_script_tag(path=str(AXE))
        result = page.evaluate(
            """async (selector) => {
                const found = await axe.run({ include: [[selector]] }, { resultTypes: ["violations"] });
                return found.violations
                    .filter((v) => v.impact === "serious" || v.impact === "critical")
                    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")}`));
            }""",
            selector,
        )
        return result

    return run
