"""Hook: keep the search index to the words readers search for — the prose — not to repeated machinery.

Material's search plugin indexes every text node of a page unless an element carries
`data-search-exclude`. Left alone, a third of our index was code blocks (which repeat the identifiers
the prose around them already names in inline code), the captions under every block, the verification
line under every title, the answer lists a match drill repeats in each item's `<select>`, the code of a
spot-the-bug drill and the labels of a step-through's graph. The index
grows with the guide and is downloaded by every reader who opens search (docs/benchmarks.md), so
these are excluded. So are the answers a drill hides until asked — a flashcard's back, a spot-the-bug
drill's hints and explanation — which a search preview would give away (the question pages say the
same in their own words). So is a coding problem's "What the grader checks" list (its `??? info` panel,
the only use of that panel type): grader internals, which otherwise outranked the question pages.
Headings, prose, inline code, the answer panels, card fronts and step narration stay searchable.

Material's parser still reads an excluded element tag by tag, only to drop what it reads: the code
blocks alone are most of a page's tags, and Python's HTML parser made the index the build's costliest
step. So the search plugin reads a copy of the page without those elements (`searched_html`), and the
page keeps them: the index is the same, byte for byte (tests/hooks/test_search_exclusions.py).
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

EXCLUDED = {  # opening tag -> the class its `class` attribute starts with ("" = every such element)
    "div": (
        "language-",  # a highlighted code block: <div class="language-python highlight">
        "drill-spot__code",  # a spot-the-bug listing: code, and "1Line 1: …" from its line numbers
        "drill-card__back",
        "drill-spot__hints",
        "drill__answer",
    ),
    "p": ("snippet-source", "verification-status"),
    "select": "",  # a match drill's keyboard fallback: every item repeats every answer
    "svg": ("drill-graph",),  # a step's graph: its node labels ran together ("MmBackward0AccumulateGrad")
    "details": ("info",),  # a coding problem's "What the grader checks" (`??? info`)
}
_OPENING = re.compile(r"<(div|p|select|svg|details)\b([^>]*)>")
_CLASS = re.compile(r'\bclass="([^"]*)"')


def exclude_from_search(html: str) -> str:
    """Mark the elements in EXCLUDED with `data-search-exclude`."""

    def mark(match: re.Match) -> str:
        tag, attributes = match.groups()
        classes = _CLASS.search(attributes)
        if "data-search-exclude" in attributes or (not classes and EXCLUDED[tag]):
            return match.group(0)
        if classes and not classes.group(1).startswith(EXCLUDED[tag]):
            return match.group(0)
        return f"<{tag}{attributes} data-search-exclude>"

    return _OPENING.sub(mark, html)


_MARKED = re.compile(r"<([a-zA-Z][\w-]*)\b[^>]*?\sdata-search-exclude\b[^>]*>")
_HEADING = re.compile(r"<h[1-6]\b")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def searched_html(html: str) -> str:
    """`html` without the elements Material's search parser would skip whole: those marked
    `data-search-exclude`, unless they hold a heading (an excluded heading drops its section, which
    only the parser can do) or are void (no content). Nested elements of the same tag are counted."""
    kept, done = [], 0
    for opening in _MARKED.finditer(html):
        tag = opening.group(1).lower()
        if opening.start() < done or tag in _VOID or _HEADING.match(html, opening.start()):
            continue  # inside an element already cut, or nothing to cut
        depth, end = 1, None
        for edge in re.compile(rf"<(/?){tag}\b[^>]*>", re.IGNORECASE).finditer(html, opening.end()):
            depth += -1 if edge.group(1) else 1
            if depth == 0:
                end = edge.end()
                break
        if end is None or _HEADING.search(html, opening.end(), end):
            continue  # unclosed (left to the parser) or holds a heading
        kept.append(html[done : opening.start()])
        done = end
    kept.append(html[done:])
    return "".join(kept)


def on_page_content(html, page, config, files):
    return exclude_from_search(html)


def on_config(config):
    """Material's search reads `searched_html` of each page; the page itself keeps all its content."""
    search = config.plugins.get("material/search") or config.plugins.get("search")
    index = getattr(search, "search_index", None)
    if not callable(getattr(index, "add_entry_from_context", None)):
        raise PluginError(
            "hooks/search_exclusions.py: Material's search plugin has no search_index.add_entry_from_context "
            "(a mkdocs-material that is not the pinned one?): pin the version in pyproject.toml, or update "
            "this hook to the method that now adds a page to the index."
        )
    index.add_entry_from_context = reading_searched_html(index.add_entry_from_context)


def reading_searched_html(add_entry):
    """`add_entry(page)` with `page.content` swapped for its searched copy while it runs."""

    def add_searched_entry(page):
        shown = page.content
        page.content = searched_html(shown)
        try:
            return add_entry(page)
        finally:
            page.content = shown

    return add_searched_entry
