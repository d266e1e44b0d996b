"""Hook: an "I can answer this" toggle on every question and drill, and progress summaries built from them.

- After every `## Q…` heading: a toggle, keyed `<page url>#<heading id>` (authors add nothing); after
  every coding-round `## C…` heading the same toggle, reading "I solved this".
- Every drill already has one from hooks/drill_blocks.py, keyed `#<drill id>`; here it gets the page url.
- Each module's index page (`docs/<chapter>/index.md`) gets that module's list, and docs/progress.md
  gets every module's, with the reset button.

The marks themselves live only in the reader's browser (localStorage): docs/javascripts/drills.js
reads them and ticks the lists. No account, no request, no server. The functions below are pure and
unit-tested on strings; the `on_*` functions only collect per page and place the lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape, unescape

from mkdocs.utils import get_relative_url

_QUESTION_HEADING = re.compile(r'<h2 id="(?P<id>[qc]\d+[^"]*)"[^>]*>(?P<inner>.*?)</h2>', re.S)
_TOGGLE = re.compile(r'<button [^>]*class="progress-toggle[^"]*"[^>]*>')
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
_TAG = re.compile(r"<[^>]+>")
_CHAPTER_INDEX = re.compile(r"^[^/]+/index\.md$")
PROGRESS_PAGE = "progress.md"


@dataclass(frozen=True)
class Item:
    key: str  # "tensors/anatomy/#q1-…": the page url and the anchor
    label: str  # "Q1 · Which attributes describe a tensor…"


@dataclass(frozen=True)
class PageItems:
    title: str
    url: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Module:
    title: str
    index_uri: str  # the src_uri of its first page ("tensors/index.md")
    pages: tuple[PageItems, ...]

    def count(self) -> int:
        return sum(len(page.items) for page in self.pages)


def toggle(key: str, label: str, text: str = "I can answer this") -> str:
    return (
        '<button type="button" class="progress-toggle progress-toggle--question" data-search-exclude '
        f'data-progress-key="{escape(key)}" '
        f'data-progress-label="{escape(label)}" aria-pressed="false">{text}</button>'
    )


def add_toggles(html: str, page_url: str) -> str:
    """A toggle after each `Q<n> …` h2; the page url in front of each drill toggle's `#…` key."""

    def after_question(found: re.Match) -> str:
        label = heading_text(found["inner"])
        if not re.match(r"[QC]\d+\b", label):
            return found[0]
        text = "I solved this" if label.startswith("C") else "I can answer this"  # a coding-round problem
        return found[0] + toggle(f"{page_url}#{found['id']}", label, text)

    html = _QUESTION_HEADING.sub(after_question, html)
    return html.replace('data-progress-key="#', f'data-progress-key="{escape(page_url)}#')


def heading_text(inner_html: str) -> str:
    return " ".join(unescape(_TAG.sub("", _HEADERLINK.sub("", inner_html))).split())


def progress_items(html: str) -> tuple[Item, ...]:
    """Every toggle of a page, in page order."""
    items = []
    for found in _TOGGLE.finditer(html):
        attributes = dict(_ATTRIBUTE.findall(found[0]))
        items.append(
            Item(unescape(attributes["data-progress-key"]), unescape(attributes.get("data-progress-label", "")))
        )
    return tuple(items)


def modules_from_nav(nav_items, items_by_url: dict[str, tuple[Item, ...]]) -> list[Module]:
    """One module per top-level nav section that opens with a chapter's index page (`tensors/index.md`),
    pages in nav order. Home and About are not modules: the drills on the conventions page are examples of
    the syntax, not items to study, and they don't count."""
    modules = []
    for entry in nav_items:
        pages = list(_pages(entry))
        if not pages or not _CHAPTER_INDEX.match(pages[0].file.src_uri):
            continue
        module_pages = tuple(
            PageItems(page.title, page.url, items_by_url.get(page.url, ()))
            for page in pages
            if items_by_url.get(page.url)
        )
        modules.append(Module(entry.title, pages[0].file.src_uri, module_pages))
    return modules


def module_summary(module: Module, from_url: str, progress_url: str) -> str:
    """The list placed at the end of a module's index page."""
    return (
        '<section class="progress-summary" data-progress-scope aria-labelledby="your-progress">'
        '<h2 id="your-progress">Your progress</h2>'
        f"<p>{_count(module.count())} in this module. The marks stay in this browser "
        f'(<a href="{escape(_link(progress_url, from_url))}">all modules</a>).</p>'
        f"{_page_lists(module, from_url)}</section>"
    )


def overview(modules: list[Module], from_url: str) -> str:
    """Every module's list, collapsed, with the reset controls: the end of docs/progress.md."""
    blocks = "".join(
        f'<details class="progress-module" data-progress-scope><summary>{escape(module.title)} · '
        f"{_count(module.count())}</summary>{_page_lists(module, from_url)}</details>"
        for module in modules
        if module.count()
    )
    total = sum(module.count() for module in modules)
    first = next((item for module in modules for page in module.pages for item in page.items), None)
    start = escape(_link(first.key, from_url)) if first else ""
    return (
        '<section class="progress-overview" data-progress-scope aria-labelledby="all-modules">'
        f'<h2 id="all-modules">All modules</h2><p>Overall: {_count(total)}.</p>'
        # drills.js points these at the first unmarked item and a random one (both: the first, without it)
        '<p class="progress-next">'
        f'<a class="drill-button drill-button--primary progress-next__first" href="{start}">Next unmarked question</a> '
        f'<a class="drill-button progress-next__random" href="{start}">Random unmarked</a>'
        '<span class="progress-next__done" hidden>Every question and drill is marked. Reset below to go again.</span>'
        f"</p>{blocks}"
        '<div class="progress-reset">'
        '<button type="button" class="drill-button progress-reset__ask">Reset all progress</button>'
        '<p class="progress-reset__confirm" hidden>Erase every mark stored in this browser? '
        '<button type="button" class="drill-button drill-button--primary progress-reset__yes">Yes, erase them</button> '
        '<button type="button" class="drill-button progress-reset__no">Keep them</button></p>'
        '<p class="progress-reset__status" role="status" aria-live="polite"></p>'
        "</div></section>"
    )


def _page_lists(module: Module, from_url: str) -> str:
    pages = []
    for page in module.pages:
        items = "".join(
            f'<li class="progress-item" data-progress-key="{escape(item.key)}">'
            f'<a href="{escape(_link(item.key, from_url))}">{escape(item.label)}</a>'
            '<span class="drill-sr-only progress-item__state"></span></li>'
            for item in page.items
        )
        pages.append(
            f'<li data-progress-scope><a href="{escape(_link(page.url, from_url))}">{escape(page.title)}</a> · '
            f'{_count(len(page.items))}<ul class="progress-list">{items}</ul></li>'
        )
    return f'<ul class="progress-pages">{"".join(pages)}</ul>'


def _count(total: int) -> str:
    """A count that drills.js fills in as "k of n"; without JavaScript it reads "n to mark"."""
    return f'<span class="progress-count" data-progress-total="{total}">{total} to mark</span>'


def _link(key: str, from_url: str) -> str:
    url, _, anchor = key.partition("#")
    link = get_relative_url(url or ".", from_url or ".")
    if (not url or url.endswith("/")) and not link.endswith("/"):
        link += "/"  # a directory url stays one ("..", not "../"), as the nav writes them
    return link + (f"#{anchor}" if anchor else "")


def _pages(entry):
    if getattr(entry, "is_page", False):
        yield entry
    for child in getattr(entry, "children", None) or []:
        yield from _pages(child)


# ---- MkDocs events ----------------------------------------------------------------------------------
_items_by_url: dict[str, tuple[Item, ...]] = {}


def on_pre_build(config):
    _items_by_url.clear()


def on_page_content(html, page, config, files):
    html = add_toggles(html, page.url)
    _items_by_url[page.url] = progress_items(html)
    return html


def on_page_context(context, page, config, nav):
    # Runs after every page's content is built, so every module's items are known here.
    uri = page.file.src_uri
    modules = modules_from_nav(nav.items, _items_by_url)
    progress_url = next((p.url for p in nav.pages if p.file.src_uri == PROGRESS_PAGE), "")
    if uri == PROGRESS_PAGE:
        page.content += overview(modules, page.url)
    elif _CHAPTER_INDEX.match(uri):
        for module in modules:
            if module.index_uri == uri and module.count():
                page.content += module_summary(module, page.url, progress_url)
    return context
