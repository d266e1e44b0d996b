"""tests/late_coverage/coverage_origin.py: coverage's Collector gets the stack summary coverage itself
would write, without `inspect.stack()`, in every process the test run traces."""

from __future__ import annotations

import inspect
import subprocess
import sys

import coverage.collector
import coverage.debug
import pytest

from tests.late_coverage import coverage_origin
from tests.snippet_files import ROOT

OPTIONS = [{}, {"skip": 2}, {"full": True}, {"short_filenames": True}]


def nested(depth: int, call):
    return nested(depth - 1, call) if depth else call()


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_summary_is_the_one_coverage_writes(options: dict) -> None:
    summaries = [coverage_origin.short_stack, coverage.debug.short_stack]
    ours, theirs = (nested(5, lambda summary=summary: summary(**options)) for summary in summaries)  # one call line
    assert ours == theirs
    assert len(ours.splitlines()) > 5  # the nested calls, at least


# Run as `python -c`, as pytest-xdist runs its workers: the outermost frames are `<string>`, which
# coverage leaves out of the summary, as it does site-packages below the first frame of interest.
UNDER_STRING = """
from tests.late_coverage import coverage_origin
from tests.test_coverage_origin import nested
import coverage.debug

summaries = [coverage_origin.short_stack, coverage.debug.short_stack]
ours, theirs = (nested(3, lambda summary=summary: summary()) for summary in summaries)
assert ours == theirs, (ours, theirs)
assert ours.split()[0] == "nested" and ours.count("nested :") == 4, ours  # the <string> module frame left out
"""


def test_the_same_frames_are_left_out_below_the_first_of_interest() -> None:
    done = subprocess.run([sys.executable, "-c", UNDER_STRING], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_frame_ids_are_those_of_the_live_frames() -> None:
    lines = nested(3, lambda: coverage_origin.short_stack(frame_ids=True)).splitlines()
    assert all(" : 0x" in line for line in lines)
    assert len({line.split(" : ")[1].split()[0] for line in lines}) == len(lines)


def test_it_never_calls_inspect_stack(monkeypatch) -> None:
    monkeypatch.setattr(inspect, "stack", lambda *args, **kwargs: pytest.fail("inspect.stack() was called"))
    assert "test_it_never_calls_inspect_stack" in coverage_origin.short_stack()


def test_a_test_process_has_it_installed() -> None:
    """tests/plugin/coverage_scope.py imports it: the Collectors of forked DataLoader workers use it."""
    assert coverage.collector.short_stack is coverage_origin.short_stack
