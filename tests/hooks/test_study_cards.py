import json
from types import SimpleNamespace

import pytest
from study_cards import (
    QUIZ_TOOLBAR,
    StudyCardError,
    clean,
    module_of,
    on_nav,
    on_page_content,
    on_post_build,
    page_cards,
    payload,
    study_links,
    with_quiz_markup,
)

QUESTION = (
    '<h2 id="q1-views">Q1 · <code>view</code> or <code>reshape</code>?<a class="headerlink" href="#q1-views" '
    'title="Permanent link">&para;</a></h2>\n'
    '<button type="button" class="progress-toggle">I can answer this</button>\n'
    "<p><strong>Answer first.</strong> <strong>Prefer reshape.</strong> See "
    '<a href="../autograd/#q9">Q9</a> and <a href="https://docs.pytorch.org/x">the docs</a>.</p>\n'
    '<div class="language-python highlight"><pre>code</pre></div>\n'
    '<details class="success">\n<summary>What a strong answer covers</summary>\n<ul>\n'
    '<li>Strides <span class="x" id="s">and</span> copies.</li>\n<li>When <code>view</code> raises.</li>\n'
    "</ul>\n</details>\n"
    '<details class="failure">\n<summary>Where people lose the point</summary>\n<ul>\n<li>Saying view copies.</li>\n'
    "</ul>\n</details>\n"
)
DECK = (
    '<section class="drill drill--cards" id="rapid-fire-tensors">'
    '<ol class="drill-cards__deck">'
    '<li class="drill-card" data-card="1"><div class="drill-card__front"><p>Front <em>one</em></p></div>'
    '<div class="drill-card__back" hidden="hidden"><p>Back one</p></div></li>'
    '<li class="drill-card" data-card="2"><div class="drill-card__front"><p>Front two</p></div>'
    '<div class="drill-card__back" hidden="hidden"><p>Back two</p></div></li>'
    "</ol></section>"
)


def cards_of(html, url="tensors/anatomy/"):
    return page_cards(html, url, "Tensor anatomy", "Tensors", ["tensors", "easy"], "tensors/anatomy.md")


def test_a_question_becomes_a_card_keyed_like_its_progress_mark():
    (card,) = cards_of(
        '<h1 id="t">T</h1>\n' + QUESTION + '<h2 id="next">Next</h2><details class="success">'
        "<summary>What a strong answer covers</summary><ul><li>not Q1's</li></ul></details>"
    )
    assert card.id == card.url == "tensors/anatomy/#q1-views"
    assert card.kind == "question" and card.module == "Tensors" and card.tags == ("tensors", "easy")
    assert card.front == "Q1 · <code>view</code> or <code>reshape</code>?"
    # the lead without its label; a link inside the site becomes text, a link out keeps its address
    assert card.back == '<strong>Prefer reshape.</strong> See Q9 and <a href="https://docs.pytorch.org/x">the docs</a>.'
    assert card.covers == ("Strides and copies.", "When <code>view</code> raises.")
    assert card.misses == ("Saying view copies.",)


def test_flashcard_ids_come_from_the_front_not_the_position():
    first = cards_of(DECK)
    swapped = DECK.replace('data-card="1"', 'data-card="X"')
    one, two = swapped.split('<li class="drill-card"')[1:]
    swapped = swapped.split('<li class="drill-card"')[0] + '<li class="drill-card"' + two.replace("</ol></section>", "")
    swapped += '<li class="drill-card"' + one + "</ol></section>"
    second = cards_of(swapped)
    assert [c.front for c in first] == ["<p>Front <em>one</em></p>", "<p>Front two</p>"]
    assert [c.id for c in second] == [first[1].id, first[0].id]
    assert first[0].id.startswith("tensors/anatomy/#rapid-fire-tensors/") and len(first[0].id.rsplit("/", 1)[1]) == 12
    assert first[0].url == "tensors/anatomy/#rapid-fire-tensors" and first[0].back == "<p>Back one</p>"


def test_cards_come_in_page_order():
    kinds = [card.kind for card in cards_of(DECK + QUESTION)]
    assert kinds == ["flashcard", "flashcard", "question"]


def test_headings_that_are_not_questions_give_no_card():
    assert cards_of('<h2 id="quantization">Quantization</h2><p><strong>Answer first.</strong> x</p>') == []


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (QUESTION.replace("<strong>Answer first.</strong>", "<strong>Answer.</strong>"), "no answer-first paragraph"),
        (QUESTION.replace("Where people lose the point", "Pitfalls"), "lacks the panel 'Where people lose the point'"),
        (DECK.replace("Front two", "Front <em>one</em>"), "two cards have the same id"),
        (DECK.replace('<div class="drill-card__back" hidden="hidden"><p>Back two</p></div>', ""), "no front or back"),
    ],
    ids=["no-answer-first", "panel-renamed", "same-front-twice", "card-without-back"],
)
def test_a_malformed_question_or_deck_fails_naming_the_page(broken, message):
    with pytest.raises(StudyCardError, match=message) as raised:
        cards_of(broken)
    assert str(raised.value).startswith("tensors/anatomy.md: ")


def test_clean_keeps_formatting_only():
    node = (
        __import__("bs4")
        .BeautifulSoup(
            '<div><p id="x" class="y">a <kbd>b</kbd> <svg><path/></svg><a href="#z">c</a><br/></p></div>', "html.parser"
        )
        .div
    )
    assert clean(node) == "<p>a <kbd>b</kbd> c<br></p>"


def test_quiz_markup_marks_each_answer_and_adds_the_toolbar_once():
    html = with_quiz_markup('<h1 id="t">T</h1>' + QUESTION + QUESTION.replace("q1", "q2"))
    assert html.count('<p class="study-answer"><strong>Answer first.</strong>') == 2
    assert html.count(QUIZ_TOOLBAR) == 1 and html.index(QUIZ_TOOLBAR) == len('<h1 id="t">T</h1>')
    assert with_quiz_markup('<h1 id="t">T</h1><p>No questions.</p>') == '<h1 id="t">T</h1><p>No questions.</p>'


def test_study_links_are_relative_and_a_modules_mock_picks_that_module():
    home = study_links("")
    assert 'href="study/verified-pytorch-interview-prep.apkg" download' in home
    assert 'href="review/"' in home and 'href="mock-interview/"' in home
    module = study_links("tensors/", "Tensors")
    assert 'href="../study/verified-pytorch-interview-prep.apkg"' in module
    assert 'href="../mock-interview/?modules=Tensors"' in module


def _page(uri, url, title="Page"):
    return SimpleNamespace(
        is_page=True, file=SimpleNamespace(src_uri=uri), url=url, title=title, parent=None, meta={"tags": ["t"]}
    )


def _nav():
    home = _page("index.md", "", "Home")
    index, anatomy = _page("tensors/index.md", "tensors/"), _page("tensors/anatomy.md", "tensors/anatomy/")
    tensors = SimpleNamespace(title="Tensors", children=[index, anatomy], parent=None)
    review = _page("review.md", "review/")
    study = SimpleNamespace(title="Study", children=[review], parent=None)
    for page, section in [(index, tensors), (anatomy, tensors), (review, study)]:
        page.parent = section
    return SimpleNamespace(pages=[home, index, anatomy, review]), (home, index, anatomy, review)


def test_only_pages_of_a_module_belong_to_one():
    _, (home, index, anatomy, review) = _nav()
    assert [module_of(p) for p in (home, index, anatomy, review)] == [None, "Tensors", "Tensors", None]


def test_the_build_writes_cards_json_in_nav_order_and_the_deck(tmp_path):
    nav, (home, index, anatomy, review) = _nav()
    on_nav(nav, None, None)
    on_page_content(QUESTION, anatomy, None, None)  # built before its module's first page: order is the nav's
    index_html = on_page_content('<h1 id="t">T</h1>' + DECK, index, None, None)
    home_html = on_page_content('<h1 id="h">H</h1>' + DECK, home, None, None)  # not a module: no cards
    assert "study-links" in index_html and "study-links" in home_html
    on_post_build(SimpleNamespace(site_dir=str(tmp_path), site_url="https://example.org/guide/"))
    written = json.loads((tmp_path / "study" / "cards.json").read_text("utf-8"))
    assert written["version"] == 1 and written["modules"] == ["Tensors"]
    assert [c["kind"] for c in written["cards"]] == ["flashcard", "flashcard", "question"]
    assert written == payload(["Tensors"], cards_of(DECK, "tensors/") + cards_of(QUESTION)) | {
        "cards": [dict(c, page="Page", tags=["t"]) for c in written["cards"]]
    }
    assert (tmp_path / "study" / "verified-pytorch-interview-prep.apkg").is_file()
