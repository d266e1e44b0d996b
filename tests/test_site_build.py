"""The build is a test: strict, offline, zero warnings."""

from __future__ import annotations

import json
import re

from tests.conftest import Build


def test_strict_build_succeeds_without_a_single_warning(built_site: Build) -> None:
    assert built_site.returncode == 0, built_site.log
    warnings = [line for line in built_site.log.splitlines() if re.match(r"^(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)


def test_every_page_is_built_with_its_code_and_source_links(built_site: Build) -> None:
    page = (built_site.site / "tensors" / "anatomy" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="snippet-source"') >= 6
    assert "--8&lt;--" not in page and "--8<--" not in page  # every include was expanded
    assert "_check" not in page  # hidden checks never reach the page


def test_the_built_site_loads_nothing_from_another_host(built_site: Build) -> None:
    """Scripts, images, styles and fonts all come from the site itself (links to read elsewhere are fine)."""
    loads = re.compile(
        r'<(?:script|img|iframe|source)\b[^>]*\bsrc="(https?://[^"]+)"|<link\b(?![^>]*rel="canonical")[^>]*href="(https?://[^"]+)"'
    )
    offenders = set()
    for html in built_site.site.rglob("*.html"):
        for match in loads.finditer(html.read_text(encoding="utf-8")):
            url = match.group(1) or match.group(2)
            if not url.startswith(built_site.url):
                offenders.add(f"{html.relative_to(built_site.site)}: {url}")
    assert not offenders, "\n".join(sorted(offenders))


HIDDEN_ANSWERS = re.compile(  # a spot-the-bug hint (one per line), a flashcard's back, a drill's answer
    r'<div data-line="\d+">(.*?)</div>|<div class="(?:drill-card__back|drill__answer)"[^>]*>(.*?)</div>', re.DOTALL
)


def plain_text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_answers_drills_hide_stay_out_of_the_search_index(built_site: Build) -> None:
    """A search preview must not show what a drill hides until asked (hooks/search_exclusions.py)."""
    index = json.loads((built_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    searchable = plain_text(" ".join(doc["text"] for doc in index["docs"]))
    hidden, shown = 0, []
    for page in sorted(built_site.site.rglob("*.html")):
        for match in HIDDEN_ANSWERS.finditer(page.read_text(encoding="utf-8")):
            answer = plain_text(match.group(1) or match.group(2))
            if len(answer) >= 40:  # long enough not to occur in the prose by chance
                hidden += 1
                shown += [f"{page.relative_to(built_site.site)}: {answer[:80]}"] if answer in searchable else []
    assert hidden > 300  # the drills' hints, backs and answers were all found
    assert not shown, "\n".join(shown)
