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
    """Serves the built site as GitHub Pages does: a missing path gets the site's own 404.html."""

    def log_message(self, *args) -> None:
        pass

    def send_error(self, code, message=None, explain=None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


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


# Every Content-Security-Policy violation, reported from the page as it happens (a binding survives
# navigations; the listener is added before any of the page's own scripts run).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
    window.__reportCspViolation(
        `${event.violatedDirective} blocked ${event.blockedURI || "inline"} on ${location.pathname}`
        + (event.sample ? ` (${event.sample})` : "")
    );
});
"""


@pytest.fixture
def page(browser, site_url: str, request: pytest.FixtureRequest):
    """A fresh page that records every request to another host and every console error (and blocks them),
    and every Content-Security-Policy violation (`page.csp_violations`).

    The site's CSP is enforced, except for tests that use `axe_violations`: axe-core is injected as an
    inline script, which that policy rightly refuses, so their context bypasses it (`page.bypass_csp`).
    """
    bypass_csp = "axe_violations" in request.fixturenames
    context = browser.new_context(
        permissions=["clipboard-read", "clipboard-write"], base_url=site_url, bypass_csp=bypass_csp
    )
    foreign: list[str] = []
    errors: list[str] = []
    violations: list[str] = []
    own = urlparse(site_url).netloc
    context.expose_binding("__reportCspViolation", lambda source, text: violations.append(text))
    context.add_init_script(CSP_LISTENER)

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
    page.csp_violations = violations
    page.bypass_csp = bypass_csp
    yield page
    context.close()


# WCAG 2.2 level A and AA, as axe-core tags them (its best-practice rules are left out).
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture
def axe_violations(page):
    """Run axe-core (served from disk, never a CDN) on the page: the serious and critical violations
    inside `selector`, as "rule (impact): target" lines. `tags` limits the rules to those tags (all
    rules by default)."""

    def run(selector: str = "body", tags: list[str] | None = None) -> list[str]:
        if not AXE.is_file():
            pytest.fail("axe-core is missing: run `npm ci --prefix tests/browser` (make test does)")
        if not page.evaluate("Boolean(window.axe)"):
            page.add_script_tag(path=str(AXE))
        result = page.evaluate(
            """async ([selector, tags]) => {
                const options = { resultTypes: ["violations"] };
                if (tags) options.runOnly = { type: "tag", values: tags };
                const found = await axe.run({ include: [[selector]] }, options);
                return found.violations
                    .filter((v) => v.impact === "serious" || v.impact === "critical")
                    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")}`));
            }""",
            [selector, tags],
        )
        return result

    return run
