"""`--verification-report=PATH`: write what this run verified, for the build's "verified on" badges.

One entry per snippet run by tests/test_snippets.py and per lab run by tests/test_labs.py — its outcome
on this lane, the sha256 of the content that ran and, when it was skipped, why ("1 GPU; needs 2 GPUs: …")
— plus the lane, the torch version and the device it ran on (the GPU's name on the GPU lane) and the
date (hooks/verification_reports.py). A lab is several tests (solved, each exercise unsolved, its
notebook): it passed only if all of them did.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from verification_reports import build_report

from tests.snippet_files import ROOT, repo_relative

VERIFYING_TESTS = ("tests/test_snippets.py::", "tests/test_labs.py::")  # parametrized by `path`
_snippet_of: dict[str, Path] = {}  # test node id -> snippet or lab file
_outcomes: dict[str, str] = {}  # test node id -> passed | failed | skipped
_skip_reasons: dict[str, str] = {}  # test node id -> why it was skipped


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--verification-report", metavar="PATH", help="write the snippets' outcomes as JSON")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        path = callspec.params.get("path") if callspec else None
        # a snippet or lab file; a coding page's notebook is tested by its folder and has no badge (no page)
        if item.nodeid.startswith(VERIFYING_TESTS) and isinstance(path, Path) and path.suffix == ".py":
            _snippet_of[item.nodeid] = path


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.nodeid not in _snippet_of and (path := _path_in(report.nodeid)) is not None:
        _snippet_of[report.nodeid] = path  # under pytest-xdist the controller collects nothing: read the id
    if report.nodeid in _snippet_of and _outcomes.get(report.nodeid) != "failed":
        if report.failed or report.skipped or report.when == "call":
            _outcomes[report.nodeid] = report.outcome
        if report.skipped and isinstance(report.longrepr, tuple):
            _skip_reasons[report.nodeid] = str(report.longrepr[2]).removeprefix("Skipped: ")


def _path_in(nodeid: str) -> Path | None:
    """`tests/test_snippets.py::test_snippet[snippets/x/y.py]` (maybe `@group`-suffixed by xdist) -> the file."""
    match = re.fullmatch(r"[^\[]+\[(snippets/[^\]]+\.py)\](@.*)?", nodeid)
    return ROOT / match.group(1) if nodeid.startswith(VERIFYING_TESTS) and match else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = session.config.getoption("verification_report")
    if not target or hasattr(session.config, "workerinput"):  # an xdist worker: the controller writes it
        return
    import torch

    lane = session.config.getoption("lane")
    device = torch.cuda.get_device_name(0) if lane == "gpu" else "CPU"
    outcomes: dict[str, tuple[str, str, str]] = {}
    for nodeid, path in _snippet_of.items():
        outcome = _outcomes.get(nodeid, "failed")
        earlier, _, reason = outcomes.get(repo_relative(path), ("passed", "", ""))
        worst = max(earlier, outcome, key=("passed", "skipped", "failed").index)
        reason = reason or _skip_reasons.get(nodeid, "")
        outcomes[repo_relative(path)] = (worst, path.read_text(encoding="utf-8"), reason)
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(build_report(lane, torch.__version__.split("+")[0], device, today, outcomes))
