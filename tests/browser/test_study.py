"""The study modes in Chromium, under the site's strict CSP: the review page (SM-2, with an injected
clock), export and import, the seeded mock interview and its summary, Quiz me, and stored data that
is not ours. The pages' first load (axe, CSP, hosts, console) is in test_site.py / test_csp.py /
test_accessibility.py like every page; here axe also audits the states those loads never reach."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import WCAG_22_AA, run_axe

STORE = "vpip.review.v1"
DAY = 24 * 60 * 60 * 1000
T0 = 1_800_000_000_000  # 2027-01-15, the injected "now"
# The clock study.js reads: a number in sessionStorage, so it survives reloads within the test.
CLOCK = f"window.__vpipNow = () => Number(sessionStorage.getItem('now') || {T0});"


@pytest.fixture
def study(fresh_page):
    page = fresh_page
    page.context.add_init_script(CLOCK)  # a context of its own: the clock must not reach other tests
    yield page
    assert page.console_errors == []
    assert page.csp_violations == []
    assert page.foreign_requests == []


def set_clock(page, when: int) -> None:
    page.evaluate("(when) => sessionStorage.setItem('now', String(when))", when)


def stored(page):
    text = page.evaluate("(key) => localStorage.getItem(key)", STORE)
    return None if text is None else json.loads(text)


def open_review(page, query: str = "?module=Tensors") -> None:
    page.goto("review/" + query)
    page.locator(".study-app.is-ready").wait_for()


def current_id(page) -> str:
    return page.locator(".study-card").get_attribute("data-card-id")


def rate(page, key: str) -> str:
    """Flip the current card with Space and rate it with a number key; the id of the card rated."""
    card = current_id(page)
    page.keyboard.press("Space")
    page.locator(".study-card__back").wait_for(state="visible")
    page.keyboard.press(key)
    return card


def cards_json(page) -> dict:
    return page.evaluate("fetch(new URL('study/cards.json', __md_scope)).then((r) => r.json())")


def test_rating_a_card_schedules_it_by_sm2(study) -> None:
    page = study
    open_review(page)
    first = current_id(page)
    page.keyboard.press("Space")
    labels = page.locator(".study-rate__button").evaluate_all("(b) => b.map((x) => x.getAttribute('aria-label'))")
    assert labels == [
        "Again (key 1): next review in 1 day",
        "Hard (key 2): next review in 1 day",
        "Good (key 3): next review in 1 day",
        "Easy (key 4): next review in 1 day",
    ]
    page.keyboard.press("3")  # Good
    assert stored(page)["cards"][first] == {"reps": 1, "ef": 2.5, "interval": 1, "due": T0 + DAY, "last": T0}
    assert current_id(page) != first  # not due again today

    for interval in (6, 15, 38):  # Good each time it is due: 1, 6, 15, 38 days (SM-2 with EF 2.5)
        when = stored(page)["cards"][first]["due"]
        set_clock(page, when)
        open_review(page)
        assert current_id(page) == first  # due cards come before new ones
        rate(page, "3")
        assert stored(page)["cards"][first]["interval"] == interval
        assert stored(page)["cards"][first]["due"] == when + interval * DAY

    when = stored(page)["cards"][first]["due"]
    set_clock(page, when)
    open_review(page)
    rate(page, "1")  # Again: back to one day, EF kept
    assert stored(page)["cards"][first] == {"reps": 0, "ef": 2.5, "interval": 1, "due": when + DAY, "last": when}


def test_easy_and_hard_move_the_easiness_factor(study) -> None:
    page = study
    open_review(page)
    easy = rate(page, "4")
    hard = rate(page, "2")
    cards = stored(page)["cards"]
    assert cards[easy] == {"reps": 1, "ef": 2.6, "interval": 1, "due": T0 + DAY, "last": T0}  # +0.10
    assert cards[hard] == {"reps": 1, "ef": 2.36, "interval": 1, "due": T0 + DAY, "last": T0}  # -0.14
    set_clock(page, T0 + DAY)
    open_review(page)
    assert current_id(page) == easy  # both due: the longer overdue (here: tie, page order) first
    rate(page, "4")
    assert stored(page)["cards"][easy]["interval"] == 6 and stored(page)["cards"][easy]["ef"] == 2.7


def test_filters_pick_module_tag_and_not_yet_known_questions(study) -> None:
    page = study
    data = cards_json_after_load(page)
    tensors = [c for c in data["cards"] if c["module"] == "Tensors"]
    counter = page.locator(".study-counter")
    page.select_option(".study-filter-module", "Tensors")
    assert counter.text_content() == f"{len(tensors)} to review (0 due, {len(tensors)} new)."
    page.select_option(".study-filter-tag", "broadcasting")
    tagged = [c for c in tensors if "broadcasting" in c["tags"]]
    assert tagged and counter.text_content().startswith(f"{len(tagged)} to review")
    page.select_option(".study-filter-tag", "")
    questions = [c for c in tensors if c["kind"] == "question"]
    page.evaluate("(key) => localStorage.setItem('vpip.progress.v1', JSON.stringify({[key]: '2027-01-01'}))",
                  questions[0]["id"])  # fmt: skip
    page.check(".study-filter-unknown")
    assert counter.text_content().startswith(f"{len(questions) - 1} to review")


def cards_json_after_load(page) -> dict:
    open_review(page, "")
    return cards_json(page)


def test_export_then_erase_then_import_restores_the_history(study, tmp_path) -> None:
    page = study
    open_review(page)
    rate(page, "3")
    rate(page, "2")
    rate(page, "1")
    before = stored(page)
    assert len(before["cards"]) == 3
    with page.expect_download() as download:
        page.click(".study-export")
    exported = tmp_path / "history.json"
    download.value.save_as(exported)
    assert json.loads(exported.read_text())["format"] == "vpip-review"
    page.click(".study-clear")
    page.click(".study-clear__yes")
    assert stored(page) is None
    assert page.locator(".study-tools__status").text_content() == "Review history erased."
    page.set_input_files(".study-import", str(exported))
    page.locator(".study-tools__status", has_text="Imported 3").wait_for()
    assert stored(page) == before
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"cards": {"x#y": {"reps": 1}}}')
    page.set_input_files(".study-import", str(foreign))
    page.locator(".study-tools__status", has_text="nothing was imported").wait_for()
    assert stored(page) == before


@pytest.mark.parametrize(
    "value",
    ["{not json", "[]", '{"version": 2, "cards": {}}', '{"version": 1, "cards": {"x#y": {"reps": "a"}}}'],
    ids=["not-json", "array", "other-version", "wrong-entry"],
)
def test_corrupt_review_storage_is_ignored_and_reported_once(study, value: str) -> None:
    page = study
    page.goto("tags/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORE, value])
    open_review(page)
    notice = page.locator(".study-notice")
    assert notice.is_visible() and "was ignored" in notice.text_content()
    assert stored(page) is None  # removed, so it is not reported again
    rate(page, "3")  # and the page works
    assert len(stored(page)["cards"]) == 1
    open_review(page)
    assert page.locator(".study-notice").is_hidden()


def test_good_entries_survive_next_to_bad_ones(study) -> None:
    page = study
    page.goto("tags/")
    good = {"reps": 2, "ef": 2.36, "interval": 6, "due": T0 - 1}
    state = {"version": 1, "cards": {"tensors/anatomy/#q1-x": good, "bad#one": {"ef": 9}}, "missed": {"a": 1}}
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORE, json.dumps(state)])
    open_review(page, "")
    assert page.locator(".study-notice").is_visible()
    assert stored(page) == {"version": 1, "cards": {"tensors/anatomy/#q1-x": good}, "missed": {}}


MOCK = "mock-interview/?modules=Tensors,Autograd&n=4&minutes=30&seed=12345"


def drawn(page, url: str) -> list[str]:
    page.goto(url)
    page.locator(".study-app.is-ready").wait_for()
    return page.locator(".study-app").get_attribute("data-mock-ids").split(" ")


def test_a_seeded_mock_interview_draws_the_same_questions(study, browser, site_url) -> None:
    page = study
    first = drawn(page, MOCK)
    data = cards_json(page)
    module = {c["id"]: c["module"] for c in data["cards"] if c["kind"] == "question"}
    assert len(first) == 4 and {module[i] for i in first} <= {"Tensors", "Autograd"}
    other = browser.new_context(base_url=site_url).new_page()  # another reader with the same address
    assert drawn(other, MOCK) == first
    other.context.close()
    assert drawn(page, MOCK.replace("seed=12345", "seed=54321")) != first
    assert page.locator(".study-mock__question").text_content().startswith("Q")
    assert page.locator(".study-mock__timer").text_content() == "30:00 left"


def test_the_form_starts_a_seeded_interview_with_the_modules_chosen(study) -> None:
    page = study
    page.goto("mock-interview/")
    page.locator(".study-app.is-ready").wait_for()
    for box in page.locator('input[name="module"]').all():
        if box.get_attribute("value") != "Data":
            box.uncheck()
    page.select_option(".study-length", "3")
    page.click(".study-start")
    page.locator(".study-mock__question").wait_for()
    assert re.search(r"modules=Data&n=3&minutes=30&seed=\d+$", page.url)
    ids = page.locator(".study-app").get_attribute("data-mock-ids").split(" ")
    assert len(ids) == 3 and all(i.startswith("data/") for i in ids)
    assert drawn(page, page.url) == ids  # the address alone draws them again


def test_a_preset_naming_modules_this_build_lacks_still_runs(study) -> None:
    page = study
    page.goto("mock-interview/")
    page.locator(".study-app.is-ready").wait_for()
    modules = cards_json(page)["modules"]
    page.click('.study-preset[data-preset="llm"]')
    page.locator(".study-mock__question").wait_for()
    missing = [m for m in ["Transformers", "LLMs", "LLM Engineering", "Inference"] if m not in modules]
    notice = page.locator(".study-notice")
    if missing:
        assert notice.is_visible() and all(m in notice.text_content() for m in missing)
    ids = page.locator(".study-app").get_attribute("data-mock-ids").split(" ")
    assert len(ids) == 6


def answer_mock(page, covered_per_question: list[int | None]) -> None:
    """For each question: reveal; mark the first k bullets covered and leave the rest unrated (None: all)."""
    for k in covered_per_question:
        page.click(".study-mock__reveal")
        radios = page.locator('.study-mock__rating input[value="covered"]')
        for i in range(radios.count() if k is None else k):
            radios.nth(i).check()
        page.click(".study-mock__next")


def test_the_summary_counts_each_module_and_feeds_the_review_queue(study) -> None:
    page = study
    url = "mock-interview/?modules=Tensors,Autograd&n=3&minutes=30&seed=7"
    ids = drawn(page, url)
    data = {c["id"]: c for c in cards_json(page)["cards"]}
    plan = [None, 1, 0]  # all covered, one covered, none covered
    answer_mock(page, plan)
    page.locator(".study-app.is-summary").wait_for()
    expected: dict[str, list[int]] = {}
    for card_id, k in zip(ids, plan, strict=True):
        total = len(data[card_id]["covers"]) + len(data[card_id]["misses"])
        got = total if k is None else k
        expected.setdefault(data[card_id]["module"], [0, 0])
        expected[data[card_id]["module"]][0] += got
        expected[data[card_id]["module"]][1] += total
    for module, (got, total) in expected.items():
        row = page.locator(f'.study-summary__modules tr[data-module="{module}"]')
        assert row.locator(".study-summary__covered").text_content() == f"{got} of {total}"
    missed_total = sum(total - got for got, total in expected.values())
    assert page.locator(".study-summary__missed li").count() == missed_total
    links = page.locator(".study-summary__questions a").evaluate_all("(a) => a.map((x) => x.href)")
    assert [link.split("/", 3)[3] for link in links] == ids
    state = stored(page)
    assert ids[0] not in state["cards"]  # every bullet covered: not made due
    assert state["cards"][ids[1]]["due"] == T0 and state["cards"][ids[2]]["due"] == T0  # missed: due now
    assert sum(state["missed"].values()) == missed_total
    assert run_axe(page, ".md-content", tags=WCAG_22_AA) == []
    open_review(page, "")
    assert current_id(page) in (ids[1], ids[2])  # due now: first in the review queue


def test_quiz_me_hides_every_answer_remembered_across_instant_navigation(study) -> None:
    page = study
    page.goto("tensors/anatomy/")
    answers = page.locator("p.study-answer")
    assert answers.count() > 1 and answers.first.is_visible()  # off by default
    page.click(".study-quiz-toggle")
    assert page.locator(".study-quiz-toggle").get_attribute("aria-pressed") == "true"
    assert page.locator("p.study-answer:visible").count() == 0
    assert page.locator("details.success:visible, details.failure:visible").count() == 0
    reveal = page.locator(".study-reveal").first
    reveal.focus()
    page.keyboard.press("Enter")
    assert reveal.get_attribute("aria-expanded") == "true" and answers.first.is_visible()
    assert page.locator("p.study-answer:visible").count() == 1
    assert run_axe(page, ".md-content", tags=WCAG_22_AA) == []
    page.evaluate("window.__stillHere = true")
    page.locator(".md-nav__link", has_text="Broadcasting").first.click()  # instant navigation
    page.wait_for_url(re.compile(r"broadcasting-indexing/$"))  # the address can change before the content:
    page.locator("h1", has_text="Broadcasting, indexing").wait_for()  # wait for the new page's article, and
    page.locator(".study-reveal").first.wait_for()  # for Quiz me to have set it up (not the old page's button)
    assert page.evaluate("window.__stillHere") is True
    assert page.locator("p.study-answer:visible").count() == 0
    page.reload()
    page.locator(".study-reveal").first.wait_for()  # remembered in this browser
    page.click(".study-quiz-toggle")
    assert page.locator(".study-reveal").count() == 0 and page.locator("p.study-answer").first.is_visible()


def test_expand_all_opens_every_panel(study) -> None:
    page = study
    page.goto("tensors/anatomy/")
    page.click(".study-expand-all")
    closed = page.locator(".md-content details:not([open])").count()
    assert closed == 0 and page.locator(".study-expand-all").text_content() == "Collapse all panels"
    page.click(".study-expand-all")
    assert page.locator(".md-content details[open]").count() == 0


def test_the_review_card_and_mock_answer_meet_wcag_22_aa(study) -> None:
    page = study
    open_review(page)
    page.keyboard.press("Space")
    assert page.evaluate("document.activeElement.classList.contains('study-card__back')")
    assert run_axe(page, ".md-content", tags=WCAG_22_AA) == []
    drawn(page, MOCK)
    page.click(".study-mock__reveal")
    assert run_axe(page, ".md-content", tags=WCAG_22_AA) == []


def test_print_shows_every_panel_and_flashcard_answer_without_navigation(study) -> None:
    page = study
    page.goto("tensors/")
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator(".md-header").is_hidden() and page.locator(".md-sidebar--primary").is_hidden()
    backs = page.locator(".drill-card__back")
    assert backs.count() > 5 and all(backs.nth(i).is_visible() for i in range(backs.count()))
    assert page.locator(".drill button:visible").count() == 0
    page.goto("tensors/anatomy/")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator(".md-content details:not([open])").count() == 0
