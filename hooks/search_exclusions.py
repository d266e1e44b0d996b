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
"""

from __future__ import annotations

import re

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


def on_page_content(html, page, config, files):
    return exclude_from_search(html)
