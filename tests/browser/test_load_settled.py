"""`load_settled` (conftest.py): the audits' wait for a loaded page, which ends once no request of the
page or its workers has been in flight for QUIET_S, instead of Playwright's fixed 0.5 s of quiet."""

from __future__ import annotations

import pytest

from tests.browser.conftest import load_settled

# A document of the site's origin that, once loaded, waits a little and then asks for one more file.
LATE_REQUEST = """<!doctype html><title>waiting</title><script>
addEventListener("load", () => setTimeout(async () => {
    await fetch("sitemap.xml?late");
    document.title = "fetched";
}, DELAY));
</script>"""


def probe(fresh_page, delay_ms: int):
    page = fresh_page
    document = LATE_REQUEST.replace("DELAY", str(delay_ms))
    page.context.route("**/late-request-probe/", lambda route: route.fulfill(body=document, content_type="text/html"))
    return page


def test_a_request_the_page_starts_just_after_loading_is_waited_for(fresh_page, monkeypatch) -> None:
    import tests.browser.conftest as conftest

    # The window is stretched (the audits use QUIET_S): on a loaded machine the page's timer fires late,
    # and a request 50 ms after load could start after a 0.1 s window without load_settled being wrong.
    monkeypatch.setattr(conftest, "QUIET_S", 1.0)
    page = probe(fresh_page, delay_ms=100)
    load_settled(page, "late-request-probe/")
    assert page.title() == "fetched"
    assert page.context.in_flight == set()


def test_without_a_quiet_window_the_same_page_is_left_before_its_request(fresh_page, monkeypatch) -> None:
    import tests.browser.conftest as conftest

    monkeypatch.setattr(conftest, "QUIET_S", 0)  # the control: the test above can fail
    page = probe(fresh_page, delay_ms=2000)
    load_settled(page, "late-request-probe/")
    assert page.title() == "waiting"


def test_a_page_that_never_settles_fails_naming_what_is_in_flight(fresh_page, monkeypatch) -> None:
    import tests.browser.conftest as conftest

    page = fresh_page
    page.context.route("**/never-answered.json", lambda route: None)  # held: neither answered nor failed
    document = '<!doctype html><script>fetch("never-answered.json")</script>'
    page.context.route("**/hanging-probe/", lambda route: route.fulfill(body=document, content_type="text/html"))
    monkeypatch.setattr(conftest, "SETTLE_TIMEOUT_S", 1)
    pending = r"hanging-probe/: not settled after 1 s; in flight: \[.*never-answered\.json"
    with pytest.raises(AssertionError, match=pending):
        load_settled(page, "hanging-probe/")
