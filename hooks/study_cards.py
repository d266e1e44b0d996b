"""Hook: the study data — every question and every flashcard as one build-time JSON file, and an Anki deck.

The review page, the mock interview and "Quiz me" (docs/javascripts/study.js) work from
`study/cards.json`, written here at the end of the build from the pages as they were rendered: nothing
is scraped in the reader's browser, and nothing is listed by hand, so a module added to the nav is
studied as soon as it is built. Each card has a stable id that never depends on its position:

- a question: `<page url>#<heading id>` (the key of its "I can answer this" mark, hooks/drill_progress.py);
  front = the question, back = its answer-first paragraph, plus the bullets of its two panels;
- a flashcard: `<page url>#<deck id>/<12 hex digits of the front's text>`; front and back as written.

The same cards become `study/verified-pytorch-interview-prep.apkg` (hooks/study_anki.py). Pages outside
the modules (Home, About: the conventions page's drills are syntax examples) give no cards.

Also, on every page: the answer-first paragraphs get a class "Quiz me" finds them by, a page with
questions gets the Quiz me / Expand all toolbar under its title, and the home page and each module's
first page end with links to the deck, the review page and the mock interview.

The functions above the events are pure (HTML in, data out) and unit-tested in tests/hooks/test_study_cards.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from html import escape
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url
from study_anki import write_deck

VERSION = 1
CARDS_PATH = "study/cards.json"
DECK_PATH = "study/verified-pytorch-interview-prep.apkg"
REVIEW_URL = "review/"  # docs/review.md: a top-level tool page, like progress.md (not a chapter)
MOCK_URL = "mock-interview/"  # docs/mock-interview.md
COVERS = "What a strong answer covers"
MISSES = "Where people lose the point"
_QUESTION = re.compile(r"^Q(\d+)\b")
_CHAPTER_INDEX = re.compile(r"^[^/]+/index\.md$")
_ANSWER_FIRST = re.compile(r"<p><strong>Answer first\.</strong>")
_H1_END = re.compile(r"</h1>")
_PIECE = re.compile(r"<h2\b[^>]*>.*?</h2>|<section\b[^>]*\bdrill--cards\b[^>]*>.*?</section>", re.S)
_NEXT_H2 = re.compile(r"<h2\b")
_ANSWER_PARTS = re.compile(r"<p\b[^>]*><strong>Answer first\.</strong>.*?</p>|<details\b[^>]*>.*?</details>", re.S)
# What a card's HTML may keep: text formatting, lists, code and links that leave the site.
_KEPT = {"p", "code", "strong", "em", "b", "i", "ul", "ol", "li", "br", "a", "kbd", "sub", "sup"}


@dataclass(frozen=True)
class Card:
    id: str
    kind: str  # "question" or "flashcard"
    module: str
    page: str  # the page's title
    url: str  # site-relative: "systems/memory/#q106-…"
    tags: tuple[str, ...]
    front: str  # HTML
    back: str  # HTML
    covers: tuple[str, ...] = field(default=())  # the panels' bullets (questions only), HTML
    misses: tuple[str, ...] = field(default=())


class StudyCardError(ValueError):
    """A question or deck is not shaped as the cards need (names the page)."""


def clean(node: Tag) -> str:
    """The inner HTML of `node` with only the tags in _KEPT: no ids (they would clash on the review page),
    no classes, no permalinks; a link inside the site becomes its text (it would point elsewhere from
    the review page), a link to another site keeps its `href`."""
    parts = []
    for child in node.children:
        if isinstance(child, NavigableString):
            parts.append(escape(str(child), quote=False))
        elif isinstance(child, Tag):
            if "headerlink" in (child.get("class") or []):
                continue
            inner = clean(child)
            href = child.get("href", "")
            if child.name == "a" and re.match(r"https?://", href):
                parts.append(f'<a href="{escape(href)}">{inner}</a>')
            elif child.name in _KEPT and child.name != "a":
                parts.append(f"<{child.name}>{inner}</{child.name}>" if child.name != "br" else "<br>")
            else:
                parts.append(inner)
    return "".join(parts).strip()


def text_digest(html: str) -> str:
    text = " ".join(BeautifulSoup(html, "html.parser").get_text().split())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def page_cards(html: str, page_url: str, page_title: str, module: str, tags: list[str], where: str) -> list[Card]:
    """Every question and flashcard of one rendered page, in page order. `where` names the page in errors.

    Only the pieces that make cards are parsed (the headings, the decks, and each question's answer-first
    paragraph and panels): a page's highlighted code is most of its HTML, and parsing it all would
    cost the build seconds."""
    cards: list[Card] = []
    common = {"module": module, "page": page_title, "tags": tuple(tags)}
    for found in _PIECE.finditer(html):
        if found[0].startswith("<h2"):
            element = BeautifulSoup(found[0], "html.parser").h2
            heading = " ".join(clean(element).split())
            if _QUESTION.match(BeautifulSoup(heading, "html.parser").get_text()) and element.get("id"):
                following = _NEXT_H2.search(html, found.end())
                section = html[found.end() : following.start() if following else len(html)]
                parts = BeautifulSoup("".join(m[0] for m in _ANSWER_PARTS.finditer(section)), "html.parser")
                cards.append(_question(parts, heading, f"{page_url}#{element['id']}", where, common))
            continue
        element = BeautifulSoup(found[0], "html.parser").section
        deck = element.get("id") or ""
        for item in element.select("li.drill-card"):
            front, back = item.select_one(".drill-card__front"), item.select_one(".drill-card__back")
            if front is None or back is None or not deck:
                raise StudyCardError(f"{where}: a flashcard in deck '{deck}' has no front or back")
            front_html = clean(front)
            card_id = f"{page_url}#{deck}/{text_digest(front_html)}"
            url = f"{page_url}#{deck}"
            cards.append(Card(card_id, "flashcard", url=url, front=front_html, back=clean(back), **common))
    ids = [card.id for card in cards]
    twice = sorted({card_id for card_id in ids if ids.count(card_id) > 1})
    if twice:
        raise StudyCardError(f"{where}: two cards have the same id (the same front twice in a deck?): {twice}")
    return cards


def _question(parts: BeautifulSoup, title: str, key: str, where: str, common: dict) -> Card:
    """`parts`: the question's answer-first paragraph and panels (`_ANSWER_PARTS`), in page order."""
    answer, covers, misses = None, None, None
    for part in parts.find_all(recursive=False):
        if part.name == "p" and answer is None:
            answer = part
        elif part.name == "details":
            summary = part.find("summary")
            name = summary.get_text().strip() if summary else ""
            if name == COVERS and covers is None:
                covers = part
            elif name == MISSES and misses is None:
                misses = part
    label = BeautifulSoup(title, "html.parser").get_text()
    if answer is None:
        raise StudyCardError(f"{where}: '{label}' has no answer-first paragraph (<p><strong>Answer first.</strong>…)")
    if covers is None or misses is None:
        raise StudyCardError(f"{where}: '{label}' lacks the panel '{COVERS if covers is None else MISSES}'")
    back = clean(answer)
    back = re.sub(r"^<strong>Answer first\.</strong>\s*", "", back)
    return Card(
        key, "question", url=key, front=title, back=back, covers=_bullets(covers), misses=_bullets(misses), **common
    )


def _bullets(panel: Tag) -> tuple[str, ...]:
    return tuple(clean(item) for item in panel.select("li"))


def payload(modules: list[str], cards: list[Card]) -> dict:
    """What study/cards.json holds: the modules in nav order, then every card."""
    return {"version": VERSION, "modules": modules, "cards": [asdict(card) for card in cards]}


def with_quiz_markup(html: str) -> str:
    """Mark each answer-first paragraph for "Quiz me"; on a page with any, the toolbar under the title."""
    if not _ANSWER_FIRST.search(html):
        return html
    html = _ANSWER_FIRST.sub('<p class="study-answer"><strong>Answer first.</strong>', html)
    return _H1_END.sub("</h1>" + QUIZ_TOOLBAR, html, count=1)


QUIZ_TOOLBAR = (
    '<div class="study-toolbar" role="group" aria-label="Study this page" data-search-exclude>'
    '<button type="button" class="drill-button study-quiz-toggle" aria-pressed="false">Quiz me</button> '
    '<button type="button" class="drill-button study-expand-all" aria-pressed="false">Expand all panels</button>'
    '<span class="drill-sr-only study-toolbar__status" role="status" aria-live="polite"></span></div>'
)


def study_links(from_url: str, module: str | None = None) -> str:
    """The links to the deck, the review page and the mock interview (a module's page: its own mock)."""
    deck = get_relative_url(DECK_PATH, from_url or ".")
    review = _page_link(REVIEW_URL, from_url)
    mock = _page_link(MOCK_URL, from_url)
    if module:
        mock += "?modules=" + escape(module.replace(" ", "+"))
    return (
        '<h2 id="study-offline" data-search-exclude>Study offline</h2>'
        '<p class="study-links" data-search-exclude>'
        f'<a href="{escape(deck)}" download>Anki deck of every question and card (.apkg)</a> · '
        f'<a href="{escape(review)}">Review what is due</a> · '
        f'<a href="{escape(mock)}">Mock interview</a> · print any page for a handout.</p>'
    )


def _page_link(url: str, from_url: str) -> str:
    link = get_relative_url(url, from_url or ".")
    return link if link.endswith("/") else link + "/"


def module_of(page) -> str | None:
    """The title of the module (top-level nav section opening with `<chapter>/index.md`) holding `page`."""
    top = page
    while getattr(top, "parent", None) is not None:
        top = top.parent
    if top is page:
        return None
    first = next(iter(_pages(top)), None)
    return top.title if first is not None and _CHAPTER_INDEX.match(first.file.src_uri) else None


def _pages(entry):
    if getattr(entry, "is_page", False):
        yield entry
    for child in getattr(entry, "children", None) or []:
        yield from _pages(child)


def write_study_files(site_dir: Path, modules: list[str], cards: list[Card], site_url: str) -> None:
    target = site_dir / CARDS_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(payload(modules, cards), ensure_ascii=False, separators=(",", ":")), "utf-8")
    write_deck(cards, modules, site_url, site_dir / DECK_PATH)


# ---- MkDocs events ----------------------------------------------------------------------------------
_cards: dict[str, list[Card]] = {}
_order: list[str] = []
_modules: list[str] = []


def on_nav(nav, config, files):
    _cards.clear()
    _order[:] = [page.url for page in nav.pages]
    _modules[:] = []
    for page in nav.pages:
        module = module_of(page)
        if module and module not in _modules:
            _modules.append(module)
    return nav


def on_page_content(html, page, config, files):
    module = module_of(page)
    if module:
        try:
            _cards[page.url] = page_cards(
                html, page.url, page.title, module, page.meta.get("tags", []), page.file.src_uri
            )
        except StudyCardError as error:
            raise PluginError(str(error)) from error
    html = with_quiz_markup(html)
    uri = page.file.src_uri
    if uri == "index.md" or (module and _CHAPTER_INDEX.match(uri)):
        html += study_links(page.url, module)  # at the end: the first screen stays the page's own
    return html


def on_post_build(config):
    cards = [card for url in _order for card in _cards.get(url, [])]
    try:
        write_study_files(Path(config.site_dir), list(_modules), cards, config.site_url or "")
    except ImportError as error:  # genanki: pinned in pyproject.toml's test and docs groups
        raise PluginError(f"hooks/study_anki.py: {error} (install the pinned groups: make serve does)") from error
