"""Which tests coverage traces under `--cov` (`make test`): only the snippet runner's.

The coverage gate counts the lines of snippets/ ([tool.coverage.run] in pyproject.toml), and the one
test that runs snippet files is tests/test_snippets.py (each file as `__main__`, or as its own
processes). Every other test reads snippets, renders pages, runs page fences, labs or a browser:
nothing it executes is a gated line. Yet on Python 3.11 a trace function slows every line the process
runs, traced file or not (the interpreter leaves its specialised fast path while one is set), so the
page fences, the labs' unsolved exercises and the hooks' Markdown rendering paid for tracing that
measured nothing. They now run with pytest-cov's own `no_cover` mark (tracing paused for the test's
call). Nothing can be lost silently: if some snippet line ever ran only outside the snippet runner,
the 100 % gate fails and names it; add that test's file to TRACED.
"""

from __future__ import annotations

import pytest

import tests.late_coverage.coverage_origin  # noqa: F401  (coverage's traced child processes start 0.1 s sooner)

TRACED = ("tests/test_snippets.py::",)  # node id prefixes of the tests that run snippet files


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("pytest_cov"):  # the GPU lane's environment has no pytest-cov
        return
    for item in items:
        if not item.nodeid.startswith(TRACED):
            item.add_marker(pytest.mark.no_cover)
