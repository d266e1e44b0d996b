"""Search that finds the answer: every query in search_queries.yml, typed into Material's search box as
a reader types it, brings up the page that answers it among the top 3 results.

One browser page serves every query (the search index loads once); the box is cleared between queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

from tests.snippet_files import ROOT

QUERIES = Path(__file__).with_name("search_queries.yml")
TOP = 3


@dataclass(frozen=True)
class Query:
    text: str
    page: str  # under docs/, e.g. "tensors/anatomy.md"
    line: int


def load_queries(text: str, where: str, docs: Path) -> list[Query]:
    """The queries in `text` (YAML: a list of {query, page}); a malformed entry or a page that does not
    exist fails with `where:line` and what is wrong."""

    def fail(node, message: str):
        raise ValueError(f"{where}:{node.start_mark.line + 1}: {message}")

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise ValueError(f"{where}:{mark.line + 1 if mark else '?'}: not valid YAML ({error})") from error
    if not isinstance(root, yaml.SequenceNode):
        raise ValueError(f"{where}:1: expected a list of entries, each with `query` and `page`")
    queries = []
    for entry in root.value:
        if not isinstance(entry, yaml.MappingNode):
            fail(entry, "an entry must be a mapping with `query` and `page`")
        fields = {}
        for key, value in entry.value:
            if key.value in fields:
                fail(key, f"`{key.value}` given twice")
            if (
                not isinstance(value, yaml.ScalarNode)
                or value.tag != "tag:yaml.org,2002:str"
                or not value.value.strip()
            ):
                fail(value, f"`{key.value}` must be non-empty text")
            fields[key.value] = value
        if set(fields) != {"query", "page"}:
            fail(entry, f"expected exactly `query` and `page`, got {sorted(fields) or 'nothing'}")
        page = fields["page"].value.strip()
        if not page.endswith(".md") or not (docs / page).is_file():
            fail(fields["page"], f"page {page!r} is not a file under docs/")
        queries.append(Query(fields["query"].value, page, entry.start_mark.line + 1))
    seen = {}
    for query in queries:
        key = query.text.strip().lower()
        if key in seen:
            raise ValueError(f"{where}:{query.line}: the query {query.text!r} is listed twice (line {seen[key]})")
        seen[key] = query.line
    return queries


def page_url(page: str) -> str:
    """`tensors/anatomy.md` -> `tensors/anatomy/`; `tensors/index.md` -> `tensors/`; `index.md` -> ``."""
    path = page.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        return path.removesuffix("index")
    return path + "/"


# ---- the data ------------------------------------------------------------------------------------
def test_the_query_list_is_well_formed_and_long_enough():
    queries = load_queries(QUERIES.read_text(encoding="utf-8"), str(QUERIES.relative_to(ROOT)), ROOT / "docs")
    assert len(queries) >= 60


def test_the_list_is_typed_as_people_type():
    """Lowercase, and class names run together: `gradscaler`, not `GradScaler` (issue 20)."""
    queries = load_queries(QUERIES.read_text(encoding="utf-8"), str(QUERIES.relative_to(ROOT)), ROOT / "docs")
    lowercase = [query.text for query in queries if query.text == query.text.lower()]
    assert len(lowercase) >= 15 and sum(" " in text for text in lowercase) >= 15
    joined = {"gradscaler", "batchnorm", "layernorm", "crossentropyloss", "dataloader", "distributedsampler"}
    assert joined <= set(lowercase)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- query: x\n  page: tensors/anatomy.md\n- query: y\n", r"q\.yml:3: expected exactly `query` and `page`"),
        ("- query: x\n  page: tensors/nope.md\n", r"q\.yml:2: page 'tensors/nope\.md' is not a file under docs/"),
        ("- query: [a, b]\n  page: tensors/anatomy.md\n", r"q\.yml:1: `query` must be non-empty text"),
        ("- query: ''\n  page: tensors/anatomy.md\n", r"q\.yml:1: `query` must be non-empty text"),
        ("- just a string\n", r"q\.yml:1: an entry must be a mapping"),
        ("query: x\n", r"q\.yml:1: expected a list"),
        ("- query: x\n  page: [\n", r"q\.yml:3: not valid YAML"),
        (
            "- query: X y\n  page: tensors/anatomy.md\n- query: x Y\n  page: tensors/anatomy.md\n",
            r"q\.yml:3: the query 'x Y' is listed twice \(line 1\)",
        ),
    ],
)
def test_malformed_query_data_fails_naming_file_and_line(text: str, message: str):
    with pytest.raises(ValueError, match=message):
        load_queries(text, "q.yml", ROOT / "docs")


def test_page_urls_follow_mkdocs_directory_urls():
    assert page_url("tensors/anatomy.md") == "tensors/anatomy/"
    assert page_url("tensors/index.md") == "tensors/"
    assert page_url("index.md") == ""


# ---- the search ----------------------------------------------------------------------------------
# Material sends each keystroke's query to its search worker and renders the answer as it arrives.
# Counting the messages both ways tells when the results on screen answer the whole query.
WORKER_COUNTER = """
(() => {
    const Native = window.Worker;
    const counts = (window.__searchWorker = { asked: 0, answered: 0 });
    window.Worker = class extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener("message", () => { counts.answered += 1; });
        }
        postMessage(...args) {
            counts.asked += 1;
            return super.postMessage(...args);
        }
    };
})();
"""
SETTLED = "() => window.__searchWorker.asked > 0 && window.__searchWorker.asked === window.__searchWorker.answered"


@pytest.fixture(scope="module")
def search_box(browser, site_url: str):
    """One page with Material's search open, reused for every query."""
    context = browser.new_context(base_url=site_url)
    context.add_init_script(WORKER_COUNTER)
    page = context.new_page()
    page.goto("")
    page.keyboard.press("/")
    box = page.locator(".md-search__input")
    box.wait_for()
    yield page, box
    context.close()


# Material reads the box on each key release and asks its worker only when the text has changed, so the
# answer to a whole query does not depend on how it was typed: the query goes in as one edit, and one
# key release sends it (typing it key by key asked the worker once per letter, ~4,000 searches a run).
# Once the worker has answered this query and Material has drawn it: how many queries were asked so
# far, and the result links, in one round trip.
ANSWERED_AFTER = (
    "(before) => window.__searchWorker.asked > before && ("
    + SETTLED.removeprefix("() => ")
    + ") && [window.__searchWorker.asked,"
    + ' [...document.querySelectorAll(".md-search-result__item > a:first-child")].map((a) => a.href)]'
)


def top_results(page, box, query: str, site_url: str, asked: int = -1) -> tuple[list[str], int]:
    """Enter `query` in the search box and return the pages of the first results, as site paths, and how
    many queries Material has asked its worker so far (`asked`: the count before this one, when known)."""
    if asked < 0:
        asked = page.evaluate("window.__searchWorker.asked")
    box.fill(query)
    box.press("End")  # the key release Material listens for
    asked, hrefs = page.wait_for_function(ANSWERED_AFTER, arg=asked).json_value()
    return [urlparse(href).path.removeprefix(urlparse(site_url).path) for href in hrefs[:TOP]], asked


def test_search_finds_the_answer_in_the_top_3(search_box, site_url: str):
    page, box = search_box
    queries = load_queries(QUERIES.read_text(encoding="utf-8"), str(QUERIES.relative_to(ROOT)), ROOT / "docs")
    misses, asked = [], -1
    for query in queries:
        found, asked = top_results(page, box, query.text, site_url, asked)
        if page_url(query.page) not in found:
            misses.append(f"{QUERIES.name}:{query.line}: {query.text!r} -> {found}, expected {page_url(query.page)}")
    passed = len(queries) - len(misses)
    assert not misses, f"{passed}/{len(queries)} queries find their page in the top {TOP}:\n" + "\n".join(misses)
    print(f"\nsearch: {passed}/{len(queries)} queries find their page in the top {TOP}")
