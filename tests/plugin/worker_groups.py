"""Which tests share a pytest-xdist worker (`make test` runs `-n auto --dist loadgroup`).

- The browser tests (tests/browser/) of one page share a worker, so that worker loads the page once
  for all of them, both schemes (tests/browser/conftest.py, `page_audits`); the other browser tests
  share a worker with the tests of their own file (module-scoped pages such as the search box). Each
  worker that runs browser tests starts one browser and serves the one site build on its own port, so
  the pages spread over both cores instead of queueing behind one browser.
- A page fence that a snippet's run proves (tests/plugin/pages.py, `reusable_snippet`) runs in the
  worker of that snippet's test, after it (collection order: tests/ before docs/), so the run is reused.
- A code block's run-mode test (tests/test_run_modes.py), which pastes the block at the prompt, runs in
  the worker of the snippet the block shows: a compile there finds the snippet's already done (or
  leaves it done for the snippet), instead of two cold compiles side by side on two workers.
- The tests of a file in ONE_WORKER share a worker: they read one module fixture too costly to make
  twice (tests/test_contributing.py: a pytest run and a site build).
- Everything else is spread over the workers one test at a time.
- The groups are handed out in collection order (pytest-xdist's default, the largest groups first, is
  turned off), and the tests that read the site build come after all the others
  (`pytest_collection_modifyitems`): the first worker starts that build in the background as the run
  begins (tests/conftest.py, `site_build_started_early`), so both workers run other tests while it
  builds instead of waiting for it, and the run ends on the small browser groups, which keeps both
  workers busy to the end.

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
# A test parametrised by a site page, in either colour scheme: `…::test_x[tensors/anatomy-dark]`.
BROWSER_PAGE_TEST = re.compile(r"[^\[]+\[(?:(?:light|dark)-)?(?P<page>[^\]]+?)(?:-(?:light|dark))?\]")
PAGE_FENCE = re.compile(r"(?P<page>docs/[^:]+\.md)::\[CodeFence#\d+\]\[line:(?P<line>\d+)\]")
ONE_WORKER = ["tests/test_contributing.py"]
RUN_MODE_TEST = re.compile(r"tests/test_run_modes\.py::test_\w+\[(?P<page>docs/[^:\]]+\.md):(?P<line>\d+)\]")


def group_of(nodeid: str) -> str:
    """The worker group of a test: "browser page <page>", "browser <file>", "file <file>" (ONE_WORKER),
    "snippet <path>" (the snippet's test, the fences it proves, the run-mode tests of blocks showing it),
    or the test's own id."""
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return nodeid.rsplit("@", 1)[1]
    if nodeid.startswith(BROWSER):
        if (match := BROWSER_PAGE_TEST.fullmatch(nodeid)) and _is_page(match["page"]):
            return f"browser page {match['page']}"
        return f"browser {nodeid.split('::', 1)[0]}"
    if (file := nodeid.split("::", 1)[0]) in ONE_WORKER:
        return f"file {file}"
    if match := SNIPPET_TEST.fullmatch(nodeid):
        return f"snippet {match['path']}"
    if (match := PAGE_FENCE.fullmatch(nodeid)) and (path := _proven_by(match["page"], int(match["line"]))):
        return f"snippet {path}"
    if (match := RUN_MODE_TEST.fullmatch(nodeid)) and (path := _shown_snippet(match["page"], int(match["line"]))):
        return f"snippet {path}"
    return nodeid


@functools.cache
def _shown_snippet(page: str, line: int) -> str | None:
    """The one snippet file the fence that opens on this line of the page shows, if it shows one."""
    from page_fences import find_fences
    from snippet_markup import parse_include

    fences = [f for f in find_fences((ROOT / page).read_text(encoding="utf-8")) if f.opening_line == line]
    paths = {include.path for fence in fences for _, text in fence.body if (include := parse_include(text))}
    return paths.pop() if len(paths) == 1 else None


@functools.cache
def _is_page(page: str) -> bool:
    """`tensors/anatomy`, `tensors/index`, `index` and the labs' `tensors/lab` name pages of the site."""
    return (ROOT / "docs" / f"{page}.md").is_file() or (ROOT / "snippets" / page).with_suffix(".py").is_file()


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


def needs_build_last(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items, those that read the site build (the `built_site` fixture) moved after the rest, each
    part in its order (a stable sort: snippet tests stay before the page fences they prove)."""
    from tests.conftest import NEEDS_BUILD

    return sorted(items, key=lambda item: NEEDS_BUILD in item.fixturenames)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = needs_build_last(items)


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # optional: the GPU lane's environment has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # collection order: the build's readers last (see above)

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return GroupScheduling(config, log)
