"""The drills and progress marks in a real browser: mouse, touch and keyboard; instant navigation; axe-core.

The live examples on docs/conventions.md are the drills under test (one of each kind); the progress
marks are tested on the tensors pages, where questions get their toggles automatically.
"""

from __future__ import annotations

import re

import pytest

CONVENTIONS = "conventions/"


@pytest.fixture
def conventions(page):
    page.goto(CONVENTIONS)
    page.locator(".drill--cards.is-ready").wait_for()  # drills.js has shuffled the cards and the pool
    yield page
    assert page.console_errors == []
    assert page.foreign_requests == []


def tab_into(page, drill) -> None:
    """Put the focus on the last focusable element before `drill`, as a reader tabbing down the page would."""
    drill.evaluate(
        """(drill) => {
            const focusable = [...document.querySelectorAll("a[href], button, select, [tabindex='0']")];
            const before = focusable.filter((el) => !drill.contains(el)
                && (el.compareDocumentPosition(drill) & Node.DOCUMENT_POSITION_FOLLOWING));
            before[before.length - 1].focus();
        }"""
    )


def focused(locator) -> bool:
    return locator.evaluate("(el) => el === document.activeElement")


def press_until_focused(page, locator, key: str = "Tab", limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press(key)
        if focused(locator):
            return
    raise AssertionError(f"{key} never reached {locator}")


# ---- spot the bug -------------------------------------------------------------------------------
def test_a_wrong_line_gets_its_hint_and_a_line_without_one_gets_a_nudge(conventions):
    drill = conventions.locator(".drill--spot")
    drill.locator('button[data-line="9"]').click()
    feedback = drill.locator(".drill__feedback")
    assert feedback.inner_text().startswith("Not line 9. backward() fills w.grad as it should.")
    assert drill.locator('button[data-line="9"]').get_attribute("data-state") == "wrong"
    drill.locator('button[data-line="3"]').click()
    assert "Not line 3." in feedback.inner_text() and "Look for the one that breaks" in feedback.inner_text()
    assert drill.locator(".drill__answer").is_hidden()


def test_the_right_line_reveals_the_explanation_and_the_fixed_code(conventions):
    drill = conventions.locator(".drill--spot")
    drill.locator('button[data-line="10"]').click()
    assert drill.locator(".drill__feedback").inner_text().startswith("Yes: line 10 is the bug.")
    answer = drill.locator(".drill__answer")
    assert answer.is_visible()
    assert "sits between backward() and step()" in answer.inner_text()
    assert "optimizer.zero_grad()\n    loss = " in answer.locator("pre code").inner_text()
    assert drill.locator(".drill-spot__show").is_hidden()


def test_show_answer_marks_the_bug_and_moves_the_focus_to_the_answer(conventions):
    drill = conventions.locator(".drill--spot")
    drill.locator(".drill-spot__show").click()
    assert drill.locator('button[data-line="10"]').get_attribute("data-state") == "right"
    assert focused(drill.locator(".drill__answer"))


def test_spot_the_bug_by_keyboard_alone(conventions):
    drill = conventions.locator(".drill--spot")
    tab_into(conventions, drill)
    conventions.keyboard.press("Tab")
    assert focused(drill.locator('button[data-line="1"]'))
    press_until_focused(conventions, drill.locator('button[data-line="10"]'), key="ArrowDown")
    conventions.keyboard.press("Enter")
    assert drill.locator(".drill__answer").is_visible()
    toggle = drill.locator(".progress-toggle")
    press_until_focused(conventions, toggle)
    conventions.keyboard.press("Space")
    assert toggle.get_attribute("aria-pressed") == "true"


def test_the_listing_is_one_tab_stop_and_shift_tab_returns_to_the_line_last_used(conventions):
    drill = conventions.locator(".drill--spot")
    tab_into(conventions, drill)
    conventions.keyboard.press("Tab")
    assert focused(drill.locator('button[data-line="1"]'))
    conventions.keyboard.press("Tab")  # one Tab leaves the listing (it was one stop per line)
    assert not drill.locator(".drill-spot__code").evaluate("(code) => code.contains(document.activeElement)")
    drill.locator('button[data-line="5"]').focus()
    conventions.keyboard.press("End")
    last = drill.locator("button.drill-spot__line").last
    assert focused(last)
    conventions.keyboard.press("Tab")
    conventions.keyboard.press("Shift+Tab")
    assert focused(last)
    assert drill.locator('button.drill-spot__line[tabindex="0"]').count() == 1


def test_on_a_phone_the_verdict_shows_next_to_the_chosen_line(browser, site_url):
    context = browser.new_context(base_url=site_url, viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto("distributed/sharded-data-parallelism/")  # the longest listing: its end is screens below its top
    drill = page.locator(".drill--spot.is-ready").first
    lines = drill.locator("button.drill-spot__line")
    for line in (lines.nth(1), lines.last):
        line.scroll_into_view_if_needed()
        line.click()
        verdict = drill.locator(".drill-spot__verdict")
        box = verdict.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 844, box
        assert verdict.inner_text().strip() == drill.locator(".drill__feedback").inner_text().strip()
    context.close()


# ---- step-through --------------------------------------------------------------------------------
def visible_step(drill) -> str:
    return drill.locator(".drill-steps__step:visible .drill-steps__title").inner_text()


def test_the_stepper_moves_forward_and_back_with_its_counter(conventions):
    drill = conventions.locator(".drill--steps")
    counter = drill.locator(".drill-steps__counter")
    assert counter.inner_text() == "Step 1 of 6" and visible_step(drill) == "The forward pass recorded a graph"
    for _ in range(3):
        drill.locator(".drill-steps__next").click()
    assert counter.inner_text() == "Step 4 of 6" and visible_step(drill) == "b.grad is written first"
    diagram = drill.locator(".drill-steps__step:visible svg")
    assert "▶ AccumulateGrad(b)" in diagram.inner_html() and "✓ AddBackward0" in diagram.inner_html()
    drill.locator(".drill-steps__prev").click()
    assert counter.inner_text() == "Step 3 of 6"


def test_the_stepper_by_keyboard_alone_stops_at_both_ends(conventions):
    drill = conventions.locator(".drill--steps")
    tab_into(conventions, drill)
    press_until_focused(conventions, drill.locator(".drill-steps__viewport"))
    for _ in range(8):
        conventions.keyboard.press("ArrowRight")
    assert drill.locator(".drill-steps__counter").inner_text() == "Step 6 of 6"
    assert drill.locator(".drill-steps__next").get_attribute("aria-disabled") == "true"
    conventions.keyboard.press("ArrowLeft")
    assert visible_step(drill) == "Multiplication scales it"
    press_until_focused(conventions, drill.locator(".drill-steps__prev"))
    for _ in range(6):
        conventions.keyboard.press("Enter")
    assert drill.locator(".drill-steps__counter").inner_text() == "Step 1 of 6"


def test_next_stays_in_place_from_step_to_step(conventions):
    drill = conventions.locator(".drill--steps")
    next_button = drill.locator(".drill-steps__next")
    places = set()
    for _ in range(5):
        places.add(round(next_button.bounding_box()["y"] - drill.bounding_box()["y"]))
        next_button.click()
    assert len(places) == 1, places  # the viewport is as tall as the tallest step


# ---- match ---------------------------------------------------------------------------------------
def center(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag_with_mouse(page, card, row) -> None:
    page.mouse.move(*center(card))
    page.mouse.down()
    page.mouse.move(*center(row), steps=8)
    page.mouse.up()


def answers(drill) -> dict[str, str]:
    """data-answer of each row -> the row."""
    return {row.get_attribute("data-answer"): row for row in drill.locator(".drill-match__item").all()}


def test_cards_dragged_with_a_mouse_land_on_their_items_and_check_right(conventions):
    drill = conventions.locator(".drill--match")
    drill.scroll_into_view_if_needed()
    rows = answers(drill)
    for _ in range(len(rows)):
        card = drill.locator(".drill-match__card:visible").first
        drag_with_mouse(conventions, card, rows[card.get_attribute("data-target")])
    assert drill.locator(".drill-match__card:visible").count() == 0
    drill.locator(".drill-match__check").click()
    assert drill.locator(".drill__feedback").inner_text() == "All 4 right."
    assert drill.locator('.drill-match__item[data-verdict="right"]').count() == 4


def test_a_card_dragged_with_a_finger_lands_on_its_item(browser, site_url):
    context = browser.new_context(
        base_url=site_url, has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    page.goto(CONVENTIONS)
    drill = page.locator(".drill--match.is-ready")
    card, row = drill.locator('.drill-match__card[data-target="t1"]'), drill.locator(".drill-match__item").first
    row.evaluate("(row) => row.scrollIntoView({block: 'center'})")  # the pool sits just above the first item
    target = "t1"
    cdp = context.new_cdp_session(page)
    (x, y), (to_x, to_y) = center(card), center(row)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 9):
        point = {"x": x + (to_x - x) * step / 8, "y": y + (to_y - y) * step / 8}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert row.locator("select").input_value() == target
    assert card.is_hidden()
    context.close()


def test_the_lists_alone_complete_a_match_by_keyboard_with_check_retry_and_reveal(conventions):
    drill = conventions.locator(".drill--match")
    selects = drill.locator(".drill-match__select")
    tab_into(conventions, drill)
    conventions.keyboard.press("Tab")
    assert focused(selects.nth(0))
    swapped = {"t1": "t2", "t2": "t1"}  # the first two rows get each other's answer, the rest their own
    for index, row in enumerate(drill.locator(".drill-match__item").all()):
        options = {o.get_attribute("value"): o.inner_text() for o in row.locator("option").all()}
        answer = row.get_attribute("data-answer")
        choice = swapped.get(answer, answer)
        if index:
            conventions.keyboard.press("Tab")
        assert focused(selects.nth(index))
        conventions.keyboard.type(options[choice][:12])  # a closed <select> picks by typing, no mouse needed
        assert selects.nth(index).input_value() == choice
    check = drill.locator(".drill-match__check")
    press_until_focused(conventions, check)
    conventions.keyboard.press("Enter")
    feedback = drill.locator(".drill__feedback")
    assert feedback.inner_text() == "2 of 4 right."
    verdicts = [row.get_attribute("data-verdict") for row in drill.locator(".drill-match__item").all()]
    assert verdicts == ["wrong", "wrong", "right", "right"]
    assert "✗ wrong" in drill.locator(".drill-match__item").nth(0).inner_text()
    retry = drill.locator(".drill-match__retry")
    press_until_focused(conventions, retry)
    conventions.keyboard.press("Enter")
    assert [s.input_value() for s in selects.all()] == ["", "", "t3", "t4"] and focused(selects.nth(0))
    reveal = drill.locator(".drill-match__reveal")
    press_until_focused(conventions, reveal)
    conventions.keyboard.press("Enter")
    assert feedback.inner_text() == "All answers shown."
    assert [s.input_value() for s in selects.all()] == ["t1", "t2", "t3", "t4"]


def test_a_match_solved_with_the_arrow_keys_alone_scores_full_marks(page):
    """Walking a closed <select> with ↓ fires `change` at every option passed: no other item may lose
    its answer to that (it did: 9 right answers by keyboard scored "3 of 9")."""
    page.goto("normalization/normalization/")
    drill = page.locator(".drill--match.is-ready")
    selects = drill.locator(".drill-match__select")
    tab_into(page, drill)
    for index, row in enumerate(drill.locator(".drill-match__item").all()):
        page.keyboard.press("Tab")
        assert focused(selects.nth(index))
        answer = row.get_attribute("data-answer")
        for _ in range(selects.nth(index).locator("option").count()):
            if selects.nth(index).input_value() == answer:
                break
            page.keyboard.press("ArrowDown")
        assert selects.nth(index).input_value() == answer
    assert [s.input_value() for s in selects.all()] == [
        row.get_attribute("data-answer") for row in drill.locator(".drill-match__item").all()
    ]
    shown = drill.locator(".drill-match__item").first.locator(".drill-match__shown").inner_text()
    assert shown == selects.first.locator("option:checked").inner_text()  # the whole chosen text
    drill.locator(".drill-match__check").click()
    total = drill.locator(".drill-match__item").count()
    assert drill.locator(".drill__feedback").inner_text() == f"All {total} right."
    assert page.console_errors == []


def test_an_answer_given_to_two_items_is_kept_and_flagged_at_check(conventions):
    drill = conventions.locator(".drill--match")
    selects = drill.locator(".drill-match__select")
    first_answer = drill.locator(".drill-match__item").first.get_attribute("data-answer")
    selects.nth(0).select_option(first_answer)
    selects.nth(1).select_option(first_answer)  # reused: the first item keeps it
    assert selects.nth(0).input_value() == first_answer
    drill.locator(".drill-match__check").click()
    assert drill.locator(".drill-match__item").nth(0).get_attribute("data-verdict") == "right"
    assert drill.locator(".drill-match__item").nth(1).get_attribute("data-verdict") == "twice"
    assert "also chosen for another item" in drill.locator(".drill__feedback").inner_text()


# ---- flashcards ---------------------------------------------------------------------------------
def shown_card(drill) -> str:
    return drill.locator(".drill-card:visible").get_attribute("data-card")


def test_flashcards_reveal_then_again_comes_back_and_got_it_finishes_the_round(conventions):
    drill = conventions.locator(".drill--cards")
    counter = drill.locator(".drill-cards__counter")
    first = shown_card(drill)
    assert drill.locator(".drill-card:visible .drill-card__back").is_hidden()
    drill.locator(".drill-cards__reveal").click()
    assert drill.locator(".drill-card:visible .drill-card__back").is_visible()
    drill.locator(".drill-cards__again").click()
    second = shown_card(drill)
    assert second != first and counter.inner_text() == "Card 1 of 3"
    seen = []
    for _ in range(3):
        seen.append(shown_card(drill))
        drill.locator(".drill-cards__reveal").click()
        drill.locator(".drill-cards__got").click()
    assert seen[0] == second and seen[-1] == first  # the card sent back comes last
    front = drill.locator(f'.drill-card[data-card="{first}"] .drill-card__front').inner_text().strip()
    assert counter.inner_text() == f"Round done: 2 of 3 the first time. Review this one: “{front}”."
    assert drill.locator(".drill-cards__restart").is_visible()


def test_flashcards_by_keyboard_alone(conventions):
    drill = conventions.locator(".drill--cards")
    tab_into(conventions, drill)
    press_until_focused(conventions, drill.locator(".drill-cards__reveal"))
    for _ in range(3):
        conventions.keyboard.press("Enter")  # reveal; the focus moves to "Got it"
        assert focused(drill.locator(".drill-cards__got"))
        conventions.keyboard.press("Enter")
    assert focused(drill.locator(".drill-cards__restart"))
    assert drill.locator(".drill-cards__counter").inner_text() == "Round done: you got all 3 cards."
    conventions.keyboard.press("Enter")
    assert drill.locator(".drill-cards__counter").inner_text() == "Card 1 of 3"


def test_the_shuffle_varies_between_visits(page):
    firsts = set()
    for _ in range(12):  # the same first card 12 times in a row: p = 3 * (1/3)**12, about 6e-6
        page.goto(CONVENTIONS, wait_until="domcontentloaded")
        firsts.add(shown_card(page.locator(".drill--cards.is-ready")))
        if len(firsts) > 1:  # varied: the remaining visits could only add to the set
            break
    assert len(firsts) > 1


# ---- progress -----------------------------------------------------------------------------------
def test_marks_survive_a_reload_and_instant_navigation_and_reset_erases_them(page):
    page.goto("tensors/anatomy/")
    toggles = page.locator(".progress-toggle--question")
    assert toggles.count() >= 6
    toggles.first.click()
    assert toggles.first.get_attribute("aria-pressed") == "true"
    page.reload()
    assert page.locator(".progress-toggle--question").first.get_attribute("aria-pressed") == "true"

    page.evaluate("window.__stillHere = true")
    page.locator(".md-tabs__link", has_text="Tensors").click()
    summary = page.locator(".progress-summary")
    summary.wait_for()
    assert page.evaluate("window.__stillHere") is True  # instant navigation, no reload
    total = int(summary.locator(".progress-count").first.get_attribute("data-progress-total"))
    assert summary.locator(".progress-count").first.inner_text() == f"1 of {total} marked"
    assert summary.locator(".progress-item.is-done").count() == 1

    summary.locator("a", has_text="all modules").click()
    overview = page.locator(".progress-overview")
    overview.wait_for()
    assert page.evaluate("window.__stillHere") is True
    assert re.fullmatch(r"1 of \d+ marked", overview.locator(".progress-count").first.inner_text())
    overview.locator(".progress-reset__ask").click()
    overview.locator(".progress-reset__yes").click()
    assert re.fullmatch(r"0 of \d+ marked", overview.locator(".progress-count").first.inner_text())
    assert overview.locator(".progress-reset__status").inner_text() == "All marks erased."
    page.reload()
    assert page.locator(".progress-item.is-done").count() == 0
    assert page.evaluate("Object.keys(JSON.parse(localStorage.getItem('vpip.progress.v1') || '{}')).length") == 0
    assert page.console_errors == [] and page.foreign_requests == []


def test_reset_asks_first_and_keep_them_keeps_the_marks(page):
    page.goto(CONVENTIONS)
    page.locator(".drill--match .progress-toggle").click()  # a demo of the syntax: not counted
    page.goto("normalization/normalization/")
    page.locator(".drill--match .progress-toggle").click()
    page.goto("progress/")
    overview = page.locator(".progress-overview")
    overview.locator(".progress-reset__ask").click()
    assert overview.locator(".progress-reset__confirm").is_visible()
    overview.locator(".progress-reset__no").click()
    assert overview.locator(".progress-item.is-done").count() == 1
    assert overview.locator(".progress-item.is-done a").text_content() == "Match the Layer to Its Job"


def test_drills_work_after_instant_navigation(page):
    page.goto("")
    page.evaluate("window.__stillHere = true")
    page.locator(".md-content a", has_text="Conventions").first.click()
    drill = page.locator(".drill--spot")
    drill.wait_for()
    drill.locator('button[data-line="10"]').click()
    assert drill.locator(".drill__answer").is_visible()
    assert page.evaluate("window.__stillHere") is True
    assert page.console_errors == []


# ---- accessibility --------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_in_the_drills_before_and_after_use(conventions, axe_violations, scheme):
    conventions.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    conventions.wait_for_timeout(600)  # Material fades colours between schemes
    assert axe_violations(".drill") == []
    conventions.locator(".drill--spot .drill-spot__show").click()
    conventions.locator(".drill--steps .drill-steps__next").click()
    conventions.locator(".drill--match .drill-match__reveal").click()
    conventions.locator(".drill--cards .drill-cards__reveal").click()
    for toggle in conventions.locator(".drill .progress-toggle").all():
        toggle.click()
    assert axe_violations(".drill") == []


@pytest.mark.parametrize("path", ["tensors/", "tensors/anatomy/", "progress/"])
def test_axe_finds_no_serious_violation_in_the_progress_marks(page, axe_violations, path):
    page.goto(path)
    page.locator(".progress-toggle, .progress-summary, .progress-overview").first.wait_for()
    assert axe_violations(".progress-toggle, .progress-summary, .progress-overview") == []


def test_progress_offers_the_next_and_a_random_unmarked_question(page):
    page.goto("progress/")
    overview = page.locator(".progress-overview")
    items = overview.locator(".progress-item")
    next_link = overview.locator(".progress-next__first")
    assert next_link.get_attribute("href") == items.first.locator("a").get_attribute("href")
    key = items.first.get_attribute("data-progress-key")
    page.evaluate("(key) => localStorage.setItem('vpip.progress.v1', JSON.stringify({[key]: '2026-12-01'}))", key)
    page.reload()
    assert next_link.get_attribute("href") == items.nth(1).locator("a").get_attribute("href")  # the first is marked
    unmarked = overview.locator(".progress-item:not(.is-done) a").evaluate_all(
        "(links) => links.map((a) => a.getAttribute('href'))"
    )
    random = overview.locator(".progress-next__random")
    random.focus()  # the target is drawn as the reader reaches for the link
    assert random.get_attribute("href") in unmarked
    assert not any("conventions" in href for href in unmarked)  # the demo drills are not items


# ---- Module 10 (docs/llm/): each page's drill works in the browser, the large-runs spot-the-bug included ----
@pytest.mark.parametrize(
    ("path", "line", "fixed"),
    [
        ("llm/decode-loop/", 12, "scaled_dot_product_attention"),
        ("llm/fine-tuning/", 16, 'reduction="sum"'),
        ("llm/large-runs/", 18, "grad_norm = torch.nn.utils.clip_grad_norm_(params"),
    ],
)
def test_llm_spot_the_bug_drills_reveal_their_fix(page, path: str, line: int, fixed: str) -> None:
    page.goto(path)
    drill = page.locator(".drill--spot")
    assert drill.count() == 1
    drill.locator(f'button[data-line="{line}"]').click()
    assert drill.locator(".drill__feedback").inner_text().startswith(f"Yes: line {line} is the bug.")
    assert fixed in drill.locator(".drill__answer pre code").inner_text()
    assert page.console_errors == [] and page.foreign_requests == []


def test_llm_step_through_match_and_deck_work(page) -> None:
    page.goto("llm/sampling/")
    page.locator(".drill--steps .drill-steps__next").click()
    assert page.locator(".drill--steps .drill-steps__counter").inner_text().startswith("Step 2 of")
    page.goto("llm/attention-kernels/")
    page.locator(".drill--match .drill-match__reveal").click()
    assert page.locator(".drill--match .drill__feedback").inner_text() == "All answers shown."
    page.goto("llm/")
    page.locator(".drill--cards.is-ready").wait_for()
    page.locator(".drill--cards .drill-cards__reveal").click()
    assert page.locator(".drill--cards .drill-card:visible .drill-card__back").is_visible()
    assert page.console_errors == [] and page.foreign_requests == []
