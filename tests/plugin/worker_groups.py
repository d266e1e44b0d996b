"""Which tests share a pytest-xdist worker (`make test` runs `-n auto --dist loadgroup`).

- Every browser test (tests/browser/) runs in one worker: one browser and one site server for the
  session, and each page loaded once per colour scheme (tests/browser/conftest.py, `page_audits`).
- A page fence that a snippet's run proves (tests/plugin/pages.py, `reusable_snippet`) runs in the
  worker of that snippet's test, after it (collection order: tests/ before docs/), so the run is reused.
- Everything else is spread over the workers one test at a time.

pytest-xdist 3.8 reads `xdist_group` marks by renaming node ids, which pytest 9.2's structured ids no
longer allows (pytest-dev/pytest-xdist#1386: the marks are silently ignored). So the groups are decided
here, from the node ids, by a scheduler that `--dist loadgroup` uses instead of xdist's own; an id
already suffixed `@group` (a fixed xdist) keeps its group.
"""

from __future__ import annotations

import functools
import re

import pytest

from tests.snippet_files import ROOT

BROWSER = "tests/browser/"
SNIPPET_TEST = re.compile(r"tests/test_snippets\.py::test_snippet\[(?P<path>snippets/[^\]]+\.py)\]")
PAGE_FENCE = re.compile(r"(?P<page>docs/[^:]+\.md)::\[CodeFence#\d+\]\[line:(?P<line>\d+)\]")


def group_of(nodeid: str) -> str:
    """The worker group of a test: "browser", "snippet <path>", or the test's own id (no group)."""
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return nodeid.rsplit("@", 1)[1]
    if nodeid.startswith(BROWSER):
        return "browser"
    if match := SNIPPET_TEST.fullmatch(nodeid):
        return f"snippet {match['path']}"
    if (match := PAGE_FENCE.fullmatch(nodeid)) and (path := _proven_by(match["page"], int(match["line"]))):
        return f"snippet {path}"
    return nodeid


@functools.cache
def _proven_by(page: str, line: int) -> str | None:
    """The snippet whose run would prove the fence that opens on this line of the page, if any."""
    from page_fences import find_fences

    from tests.plugin.pages import _included_files, expand_includes, reusable_snippet

    fences = [f for f in find_fences((ROOT / page).read_text(encoding="utf-8")) if f.opening_line == line]
    if not fences or fences[0].info.startswith("{"):  # a continuation also re-runs the fences before it
        return None
    body = "\n".join(text[len(fences[0].indent) :] for _, text in fences[0].body)
    return reusable_snippet("\n".join(expand_includes(body)[0]), _included_files(ROOT / page, line))


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # optional: the GPU lane's environment has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return GroupScheduling(config, log)
