"""Serve the built site on its local port and drive it with headless Chromium (no `playwright install`)."""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.browser.chromium import INSTRUCTION, find_chromium
from tests.conftest import Build
from tests.plugin.site_server import SERVED_AT, serve

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
    # Every host but the site's resolves to nothing: a request to another host is recorded
    # (`watched_context`) and fails, without routing every request through Playwright (routing turns
    # the HTTP cache off: each page load fetched every asset again, ~0.5 s of CPU a load).
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in item.nodeid:
            item.add_marker(pytest.mark.browser)  # which tests share a worker: tests/plugin/worker_groups.py


@pytest.fixture(scope="session")
def site_url(built_site: Build) -> Iterator[str]:
    """The built site, served on the port it was built for: by the pytest-xdist controller for the whole
    run when there is one (tests/plugin/site_server.py), by this session otherwise."""
    assert built_site.returncode == 0, built_site.log
    if os.environ.get(SERVED_AT) == built_site.url:
        yield built_site.url
        return
    server = serve(built_site.site, urlparse(built_site.url).port)
    yield built_site.url
    server.shutdown()
    server.server_close()


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


BLOCKED_BY_POLICY = "csp"  # Playwright's `request.failure` for a request the page's policy refused


def watched_context(browser, site_url: str, **options):
    """A context that records every request to another host (the browser cannot reach one:
    CHROMIUM_FLAGS) and every CSP violation.

    The site's Content-Security-Policy is always enforced: axe-core is evaluated through the DevTools
    protocol (`install_axe`), which the page's policy does not govern, so no test needs `bypass_csp`.
    """
    context = browser.new_context(base_url=site_url, **options)
    context.foreign_requests = []
    context.csp_violations = []
    context.in_flight = set()  # requests of its pages and workers not yet finished or failed (`load_settled`)
    context.last_request_event = time.monotonic()
    own = urlparse(site_url).netloc
    context.expose_binding("__reportCspViolation", lambda source, text: context.csp_violations.append(text))
    context.add_init_script(CSP_LISTENER)

    def record(request) -> None:
        foreign = urlparse(request.url).netloc != own and not request.url.startswith(("data:", "blob:"))
        if foreign and request.failure != BLOCKED_BY_POLICY:  # the policy stopped it in the page: no request
            context.foreign_requests.append(request.url)

    # every request of its pages and their workers that got past the page's policy: it failed for
    # another reason (here, always: no other host resolves) or, were that possible, finished
    context.on("requestfailed", record)
    context.on("requestfinished", record)

    def started(request) -> None:
        context.in_flight.add(request)
        context.last_request_event = time.monotonic()

    def ended(request) -> None:
        context.in_flight.discard(request)
        context.last_request_event = time.monotonic()

    context.on("request", started)
    context.on("requestfailed", ended)
    context.on("requestfinished", ended)
    return context


QUIET_S = 0.1  # how long no request may be in flight before a loaded page counts as settled
SETTLE_TIMEOUT_S = 15


def load_settled(page, url: str) -> None:
    """Go to `url` and wait until it has loaded and settled: the load event, then no request of its
    pages or workers in flight for QUIET_S. Playwright's "networkidle" waits 0.5 s after the last
    request instead, which was 0.4 s of every audited page's load spent waiting (the last request, the
    favicon, ends within 0.1 s of the load event). test_accessibility.py proves a page audited after
    this wait paints what a page loaded until "networkidle" paints, and the audits read the requests
    and console once more when they end, seconds later."""
    page.goto(url)
    context, deadline = page.context, time.monotonic() + SETTLE_TIMEOUT_S
    while context.in_flight or time.monotonic() - context.last_request_event < QUIET_S:
        if time.monotonic() > deadline:
            pending = sorted(request.url for request in context.in_flight)
            raise AssertionError(f"{url}: not settled after {SETTLE_TIMEOUT_S} s; in flight: {pending}")
        page.wait_for_timeout(QUIET_S * 1000 / 2)  # lets Playwright deliver the request events meanwhile


def watched_page(context):
    """A new page of a `watched_context` that also records its console errors and uncaught exceptions."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.foreign_requests = context.foreign_requests
    page.console_errors = errors
    page.csp_violations = context.csp_violations
    page.bypass_csp = False
    return page


PERMISSIONS = ["clipboard-read", "clipboard-write"]  # the copy buttons


# Material builds its search index in a web worker on every full page load: about 0.85 s of CPU each
# (docs/benchmarks.md), and the browser tests load pages a few hundred times. A test's tab builds it only
# when the test searches, and says so: `@pytest.mark.search`. Otherwise Material's search worker is an
# inert stand-in (every other worker is real): Material still fetches the index and posts it to its
# worker, which answers "ready" without building anything, and a query posted to it logs a console
# error naming the marker, which every test that checks the console then reports. The page audits
# (every page, both schemes) use the stand-in too: the worker and the index are the same files on every
# page, and the one thing a page could change about them, its policy's worker-src and connect-src, is
# checked on every page by tests/test_site_policy.py. The real worker runs in test_search.py, the search
# dialog's audits, test_csp.py's search, and the fresh loads of one page of each kind that
# test_accessibility.py proves the audits paint the same as; test_quiet_search.py proves both sides.
QUIET_SEARCH = """(() => {
    const Native = window.Worker;
    const material = /\\/workers\\/search\\.[0-9a-f]+\\.min\\.js$/;
    window.Worker = new Proxy(Native, {
        construct(target, args, newTarget) {
            if (!material.test(new URL(String(args[0]), location.href).pathname)) {
                return Reflect.construct(target, args, newTarget);
            }
            const standIn = new EventTarget();
            standIn.postMessage = (message) => {
                if (message && message.type === 0) {  // the index, sent on load: "ready", as the worker says
                    const ready = new MessageEvent("message", { data: { type: 1 } });
                    setTimeout(() => standIn.dispatchEvent(ready));
                } else if (message && message.type === 2 && String(message.data).trim()) {  // a query
                    console.error(`search is off in this test's tab: mark the test @pytest.mark.search`
                        + ` (it searched for ${JSON.stringify(message.data)})`);
                }  // never answered (Material also asks for the empty query, as a key is pressed)
            };
            standIn.terminate = () => {};
            return standIn;
        },
    });
})();"""


def searches(request: pytest.FixtureRequest) -> bool:
    """Whether the test uses Material's search (`@pytest.mark.search`): its tab builds the index."""
    return request.node.get_closest_marker("search") is not None


def quiet_search(context):
    context.add_init_script(QUIET_SEARCH)
    return context


@pytest.fixture
def fresh_page(browser, site_url: str, request: pytest.FixtureRequest):
    """A page in a context of its own, for a test that changes the context itself (an init script, a
    route): otherwise like `page`."""
    context = watched_context(browser, site_url, permissions=PERMISSIONS)
    if not searches(request):
        quiet_search(context)
    yield watched_page(context)
    context.close()


# What a test may not do to the shared tab's context: it would outlive the test (ask for `fresh_page`).
CONTEXT_CHANGES = ["add_init_script", "route", "expose_binding", "expose_function", "set_extra_http_headers",
                   "grant_permissions", "clear_permissions", "set_geolocation", "set_offline"]  # fmt: skip
PAGE_CHANGES = ["add_init_script", "route", "expose_binding", "expose_function", "set_extra_http_headers"]
# A new tab's media emulation, as Playwright's contexts start (print media, dark scheme… reset).
DEFAULT_MEDIA = {"media": "null", "color_scheme": "light", "reduced_motion": "no-preference",
                 "forced_colors": "none", "contrast": "no-preference"}  # fmt: skip
VIEWPORT = {"width": 1280, "height": 720}  # Playwright's default
SAME_ORIGIN_DOCUMENT = "sitemap.xml"  # small, always built: a document of the site's origin, to clear its storage
CLEAR_STORAGE = "() => { localStorage.clear(); sessionStorage.clear(); return navigator.clipboard.writeText(''); }"


def _refuse(name: str):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"{name}() on the shared tab would outlive this test: use the `fresh_page` fixture")

    return refuse


def _shared_tab(browser, site_url: str, searching: bool) -> Iterator:
    context = watched_context(browser, site_url, permissions=PERMISSIONS)
    if not searching:
        quiet_search(context)
    tab = watched_page(context)
    for name in CONTEXT_CHANGES:
        setattr(context, name, _refuse(f"context.{name}"))
    for name in PAGE_CHANGES:
        setattr(tab, name, _refuse(f"page.{name}"))
    yield tab
    context.close()


@pytest.fixture(scope="session")
def shared_tab(browser, site_url: str) -> Iterator:
    """One tab for every test that asks for `page`: a new context per test cost about a second each
    (a new renderer, a cold cache), over a hundred tests. Its search builds no index (QUIET_SEARCH)."""
    yield from _shared_tab(browser, site_url, searching=False)


@pytest.fixture(scope="session")
def searching_shared_tab(browser, site_url: str) -> Iterator:
    """The shared tab of the tests marked `search`: Material's real search worker."""
    yield from _shared_tab(browser, site_url, searching=True)


def reset_tab(tab, site_url: str) -> None:
    """Leave the shared tab as a new one starts: no other tab open, the site's storage and cookies and
    the clipboard empty, default media and viewport, no key or button held, on about:blank, and nothing
    recorded. What it keeps is the browser's HTTP cache, as a returning reader's browser does."""
    for other in tab.context.pages:
        if other is not tab:
            other.close()
    tab.goto(site_url + SAME_ORIGIN_DOCUMENT)
    tab.evaluate(CLEAR_STORAGE)
    tab.context.clear_cookies()
    tab.emulate_media(**DEFAULT_MEDIA)
    tab.set_viewport_size(VIEWPORT)
    for key in ("Shift", "Control", "Alt", "Meta"):
        tab.keyboard.up(key)
    tab.mouse.up()
    tab.mouse.move(0, 0)
    tab.goto("about:blank")
    for recorded in (tab.foreign_requests, tab.csp_violations, tab.console_errors):
        recorded.clear()


@pytest.fixture
def page(site_url: str, request: pytest.FixtureRequest):
    """A page that records every request to another host and every console error (and blocks them),
    and every Content-Security-Policy violation (`page.csp_violations`), with the site's policy
    enforced: the session's one tab, reset to a new tab's state before each test (`reset_tab`;
    test_shared_tab.py proves it); with Material's real search for a test marked `search`."""
    tab = request.getfixturevalue("searching_shared_tab" if searches(request) else "shared_tab")
    reset_tab(tab, site_url)
    yield tab


# ---- axe-core ------------------------------------------------------------------------------------
# WCAG 2.2 level A and AA, as axe-core tags them (its best-practice rules are left out).
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# The rules whose result depends on colours: axe tags them "cat.color" (color-contrast and
# link-in-text-block at level AA). They are all that can change between the light and the dark scheme:
# both schemes render the same markup (test_accessibility.py proves it), only the CSS colours differ.
COLOUR_CATEGORY = "cat.color"

AXE_RUN = """async ([selector, exclude, options]) => {
    const context = exclude ? { include: [[selector]], exclude: [[exclude]] } : { include: [[selector]] };
    const found = await axe.run(context, { resultTypes: ["violations"], ...options });
    return found.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")}`));
}"""


@functools.cache
def _axe_source() -> str:
    if not AXE.is_file():
        pytest.fail("axe-core is missing: run `npm ci --prefix tests/browser` (make test does)")
    return AXE.read_text(encoding="utf-8")


def install_axe(page) -> None:
    """Put axe-core (from disk, never a CDN) into the page, as DevTools would: the page's CSP stays on."""
    if not page.evaluate("Boolean(window.axe)"):
        page.evaluate(_axe_source())


def colour_rules(page, tags: list[str] = WCAG_22_AA) -> list[str]:
    """The ids of axe's rules with these tags whose result depends on colours."""
    install_axe(page)
    return page.evaluate(
        "([tags, category]) => axe.getRules(tags).filter((r) => r.tags.includes(category)).map((r) => r.ruleId)",
        [tags, COLOUR_CATEGORY],
    )


def run_axe(
    page, selector: str = "body", tags: list[str] | None = None, rules: list[str] | None = None, exclude: str = ""
) -> list[str]:
    """The serious and critical violations inside `selector` and outside `exclude`, as "rule (impact):
    target" lines; `tags` or `rules` limit the rules run (all rules by default)."""
    install_axe(page)
    options = {}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": rules}
    elif tags is not None:
        options["runOnly"] = {"type": "tag", "values": tags}
    return page.evaluate(AXE_RUN, [selector, exclude, options])


# ---- the colour rules measure each look once -------------------------------------------------------
# A colour rule's result for a piece of text follows from its look: its colour, font (size, weight,
# style), text shadow and decoration, what its pseudo-elements paint, and every background, opacity,
# filter and blend mode behind it. A page repeats a few dozen looks hundreds of times (highlighted token
# styles in every code block and spot-the-bug drill, link styles down the navigation, paragraphs, list
# items and inline code in the text), so most of what the colour rules measured was the same pair of
# colours again. Before they run, every element with text of its own in one of these families is marked
# when an element of the same look, shown to the reader, came before it; the colour rules' own selectors
# are then narrowed to unmarked elements (`measure_each_look_once`). Shown means visible, larger than a
# pixel and not cut off by a clipping or scrolling ancestor: a look first met hidden, off to the side
# of a scrolled block or in screen-reader-only text is measured where it is shown. A link in the
# page's text is never marked: link-in-text-block compares it with the text around it, which its look
# does not hold. The header, tabs, footer and search dialog are measured whole. Both passes do this,
# each with its scheme's colours; in the light pass's one axe run every other rule still checks every
# element, where sameness of colours says nothing about, say, focusability (a separate run for the
# colour rules built axe's layout grid a second time: slower than one run).
SAME_LOOK = "data-axe-same-look"
# code blocks; spot-the-bug drills' lines; navigation (site and table of contents); the page's text
REPEATING_FAMILIES = ["pre > code", ".drill-spot__line", ".md-nav__item", ".md-content__inner"]
ALWAYS_MEASURED = ".md-content__inner a[href]:not(pre a)"  # links in the page's text
MARK_SAME_LOOKS = """([families, alwaysMeasured, marker]) => {
    const backdrops = new Map();
    const backdrop = (element) => {  // what is painted behind an element, up to the root
        if (!element) return "";
        if (!backdrops.has(element)) {
            const s = getComputedStyle(element);
            const own = [s.backgroundColor, s.backgroundImage, s.opacity, s.filter, s.mixBlendMode];
            backdrops.set(element, own.join(" ") + " < " + backdrop(element.parentElement));
        }
        return backdrops.get(element);
    };
    const look = (element) => {
        const s = getComputedStyle(element);
        const [before, after] = ["::before", "::after"].map((pseudo) => getComputedStyle(element, pseudo));
        return [element.tagName, s.color, s.fontSize, s.fontWeight, s.fontStyle, s.textShadow,
            s.textDecorationLine, s.position, s.clip, s.clipPath, getComputedStyle(element.parentElement).color,
            before.content, before.backgroundColor, after.content, after.backgroundColor,
            backdrop(element)].join("|");
    };
    const ownText = (element) =>
        [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.data.trim());
    const shown = (element) => {  // visible, larger than a pixel, inside every box that clips it
        if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
        const box = element.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) return false;
        // the page itself scrolls to any of its text: its root and body are not boxes that cut text off
        for (let outer = element.parentElement; outer !== document.body; outer = outer.parentElement) {
            const s = getComputedStyle(outer);
            if (s.overflowX === "visible" && s.overflowY === "visible") continue;
            const frame = outer.getBoundingClientRect();
            if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5
                || box.top < frame.top - 0.5 || box.bottom > frame.bottom + 0.5) return false;
        }
        return true;
    };
    const measured = new Set();  // looks shown on an element the colour rules will measure
    const visited = new Set();
    let marked = 0;
    for (const family of families) {
        for (const container of document.querySelectorAll(family)) {
            for (const element of [container, ...container.querySelectorAll("*")]) {
                if (visited.has(element)) continue;
                visited.add(element);
                if (!ownText(element) || element.matches(alwaysMeasured)) continue;
                const each = look(element);
                if (measured.has(each)) {
                    element.setAttribute(marker, "");
                    marked += 1;
                } else if (shown(element)) {
                    measured.add(each);
                }
            }
        }
    }
    return marked;
}"""


# Each colour rule's selector (axe-core's own, kept the first time) with every part limited to elements
# without the mark; the rules' `matches` functions and checks are untouched.
NARROW_COLOUR_RULES = """([rules, marker]) => {
    const own = (window.__axeOwnSelectors ??= {});
    axe.configure({ rules: rules.map((id) => {
        own[id] ??= axe._audit.rules.find((rule) => rule.id === id).selector || "*";
        if (/[()"']/.test(own[id])) throw new Error(`cannot narrow ${id}'s selector ${own[id]}`);
        const parts = own[id].split(",").map((part) => `${part.trim()}:not([${marker}])`);
        return { id, selector: parts.join(", ") };
    }) });
}"""


def mark_same_looks(page) -> int:
    """Mark each element of the repeating families whose look the page has already shown (see above); how
    many elements."""
    return page.evaluate(MARK_SAME_LOOKS, [REPEATING_FAMILIES, ALWAYS_MEASURED, SAME_LOOK])


def measure_each_look_once(page) -> int:
    """`mark_same_looks`, and axe's colour rules narrowed to the unmarked elements for the page's next
    runs (every other rule still checks every element); how many elements were marked."""
    marked = mark_same_looks(page)
    page.evaluate(NARROW_COLOUR_RULES, [colour_rules(page), SAME_LOOK])
    return marked


UNMARK_SAME_LOOKS = "(marker) => document.querySelectorAll(`[${marker}]`).forEach((e) => e.removeAttribute(marker))"


def unmark_same_looks(page) -> None:
    """Take the marks off: the page as it was, for the other scheme's colours to be judged afresh."""
    page.evaluate(UNMARK_SAME_LOOKS, SAME_LOOK)


@pytest.fixture
def axe_violations(page):
    """Run axe-core on the page: the serious and critical violations inside `selector`, as
    "rule (impact): target" lines. `tags` limits the rules to those tags (all rules by default)."""

    def run(selector: str = "body", tags: list[str] | None = None) -> list[str]:
        return run_axe(page, selector, tags)

    return run


# ---- every page, loaded once, audited in both colour schemes -----------------------------------------
SCHEMES = {"light": "default", "dark": "slate"}  # prefers-color-scheme -> Material's scheme
POLICY_META = 'head > meta[http-equiv="Content-Security-Policy"]:first-child'


@dataclass(frozen=True)
class PageAudit:
    """What one page showed in one colour scheme: every check of test_site.py, test_csp.py and
    test_accessibility.py reads its own part of it."""

    path: str
    media: str  # the reader's system setting: "light" or "dark"
    scheme: str  # the scheme Material chose from it
    policy: str | None  # the page's Content-Security-Policy <meta>, None when missing
    csp_violations: list[str]
    foreign_requests: list[str]
    console_errors: list[str]
    axe_rules: list[str]  # the axe rules run: "tags: …" (the WCAG 2.2 AA tags), or rule ids; "each look once: …"
    axe: list[str]  # serious and critical violations, with every collapsible panel open
    same_look: int  # elements the colour rules left out: each looks like one they measured (MARK_SAME_LOOKS)
    markup: str  # a digest of every element and its attributes, less the two that name the scheme
    seconds: dict[str, float]  # light: "load" (goto until the network is idle); dark: "switch"; both: "axe"


# Every element with its attributes, one line each, sorted, less the scheme's own two (<meta
# name="color-scheme"> and <body data-md-color-scheme>) and what each load draws at random: the drills
# shuffle their items and a flashcard deck shows a random card first (`hidden` on the others).
MARKUP = """() => [...document.querySelectorAll("*")]
    .map((element) => element.tagName + " " + [...element.attributes]
        .filter((a) => !(element === document.body && a.name === "data-md-color-scheme"))
        .filter((a) => !(element.matches("meta[name=color-scheme]") && a.name === "content"))
        .filter((a) => !(element.matches(".drill-card") && a.name === "hidden"))
        .map((a) => `${a.name}=${a.value}`).join(" "))
    .sort().join("\\n")"""
OPEN_PANELS = "document.querySelectorAll('details').forEach((panel) => { panel.open = true; })"
# Material follows the reader's system setting live (the palette's "(prefers-color-scheme)" entry): when
# it changes, the page switches scheme in place. Done once the body names the scheme and no CSS
# transition (a link's colour, an opened panel's shadow) is still running.
SETTLED = """() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== "running")"""


def digest(page, script: str) -> str:
    return hashlib.sha256(page.evaluate(script).encode()).hexdigest()


def switch_scheme(page, media: str) -> None:
    """The reader's system setting changes to `media`; wait until Material has followed it."""
    page.emulate_media(color_scheme=media)
    page.wait_for_function("(scheme) => document.body.dataset.mdColorScheme === scheme", arg=SCHEMES[media])
    page.wait_for_function(SETTLED)


def _audit(page, path: str, url: str) -> dict[str, PageAudit]:
    """Load the page once in the light scheme and audit it; then switch the system setting to dark, as a
    reader's OS does at dusk, and audit what colours decide. That the switched page is the page a reader
    who loads it in dark gets is checked in test_accessibility.py, as is loading it in a tab that
    showed another page before."""
    context = page.context
    page.emulate_media(color_scheme="light")  # the tab's previous page was left in the dark scheme
    context.csp_violations.clear()
    context.foreign_requests.clear()
    page.console_errors.clear()

    def seen() -> tuple[list[str], list[str], list[str]]:
        return list(context.csp_violations), list(context.foreign_requests), list(page.console_errors)

    started = time.perf_counter()
    load_settled(page, url)
    loaded = time.perf_counter()
    light_scheme = page.evaluate("document.body.dataset.mdColorScheme")
    policy = page.locator(POLICY_META).get_attribute("content") if page.locator(POLICY_META).count() else None
    light_seen = seen()
    page.evaluate(OPEN_PANELS)
    light_markup = digest(page, MARKUP)
    colour = colour_rules(page)
    light_same_look = measure_each_look_once(page)
    light_rules = [f"tags: {' '.join(WCAG_22_AA)}", f"each look once: {' '.join(colour)}"]
    light_axe = run_axe(page, tags=WCAG_22_AA)  # the whole rule set once, in the light scheme …
    unmark_same_looks(page)
    audited = time.perf_counter()
    light = PageAudit(
        path, "light", light_scheme, policy, *light_seen, light_rules, light_axe, light_same_look, light_markup,
        {"load": loaded - started, "axe": audited - loaded},
    )  # fmt: skip
    switch_scheme(page, "dark")  # … and in the dark scheme only what colours decide, each look once
    switched = time.perf_counter()
    dark_scheme, dark_markup = page.evaluate("document.body.dataset.mdColorScheme"), digest(page, MARKUP)
    dark_same_look = measure_each_look_once(page)
    dark_rules = [*colour, f"each look once: {' '.join(colour)}"]
    dark_axe = run_axe(page, rules=colour)
    dark = PageAudit(
        path, "dark", dark_scheme, policy, *seen(), dark_rules, dark_axe, dark_same_look, dark_markup,
        {"switch": switched - audited, "axe": time.perf_counter() - switched},
    )  # fmt: skip
    return {"light": light, "dark": dark}


class PageAudits:
    """Loads each page at most once in the session, on first request, and keeps what it saw in both schemes.

    The pages are loaded one after another in one tab, as a reader follows links: each is a new
    document (its own load, policy, requests and console), and the tab's renderer process, with the
    compiled code it keeps, is reused instead of started for every page (about a third of the audits'
    time went into new tabs)."""

    def __init__(self, browser, site_url: str) -> None:
        self._context = quiet_search(watched_context(browser, site_url, color_scheme="light"))
        self._page = watched_page(self._context)
        self._done: dict[str, dict[str, PageAudit]] = {}

    def get(self, path: str, url: str) -> tuple[dict[str, PageAudit], bool]:
        """The audits of `path` by scheme, and whether this call is the one that loaded it."""
        fresh = path not in self._done
        if fresh:
            self._done[path] = _audit(self._page, path, url)
        return self._done[path], fresh

    def close(self) -> None:
        self._context.close()


@pytest.fixture(scope="session")
def page_audits(browser, site_url: str) -> Iterator[PageAudits]:
    audits = PageAudits(browser, site_url)
    yield audits
    audits.close()


@pytest.fixture
def page_audit(page_audits: PageAudits, request: pytest.FixtureRequest):
    """`page_audit(path, media)`: what the one load of that page showed in that scheme, shared by every
    check of it. The test that triggers the load records its seconds (`browser: …` user properties, for
    `make bench`)."""
    from tests.browser.test_site import url_of

    def get(path: str, media: str) -> PageAudit:
        audits, fresh = page_audits.get(path, url_of(path))
        if fresh:
            light, dark = audits["light"], audits["dark"]
            request.node.user_properties += [
                ("browser: page load + CSP/host/console (light)", light.seconds["load"]),
                ("browser: axe WCAG 2.2 AA (light)", light.seconds["axe"]),
                ("browser: switch to the dark scheme", dark.seconds["switch"]),
                ("browser: axe colour rules (dark)", dark.seconds["axe"]),
            ]
        return audits[media]

    return get
