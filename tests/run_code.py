"""How the tests run a snippet or a page fence: warnings strict, stdout captured for the `# >` check."""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

LATE_COVERAGE = Path(__file__).parent / "late_coverage"  # its sitecustomize.py says why
DIST_TIMEOUT_S = 180  # a hung process group fails the test instead of blocking the suite


def untraced_environment(**extra: str) -> dict[str, str]:
    """This process's environment (plus `extra`) without coverage's subprocess hook, for a child whose
    lines the coverage gate does not count: a site build, a lab's kernel, a pytest or tool run on a copy.

    Under `--cov`, coverage (`patch = ["subprocess"]`) hands every child its configuration, so the child
    traces itself. Only a multi-process snippet's ranks need that (`run_in_subprocess`); for the others
    it measured nothing we gate on and made them 30-45 % slower, and a child running in a temporary
    folder resolved the config's relative paths there and reported the snippets' folders as files."""
    environment = {name: value for name, value in os.environ.items() if name != "COVERAGE_PROCESS_CONFIG"}
    return {**environment, **extra}


@contextlib.contextmanager
def current_apis_only() -> Iterator[None]:
    """A DeprecationWarning or FutureWarning fails the code, unless it asserts the warning itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("error", FutureWarning)
        yield


def run_in_process(path: Path) -> str:
    """Run a snippet file as `__main__` (its checks included) and return what it printed."""
    printed = io.StringIO()
    with current_apis_only(), contextlib.redirect_stdout(printed):
        runpy.run_path(str(path), run_name="__main__")
    return printed.getvalue()


def exec_in_process(code, namespace: dict) -> str:
    """Execute compiled page code in `namespace` and return what it printed."""
    printed = io.StringIO()
    with current_apis_only(), contextlib.redirect_stdout(printed):
        exec(code, namespace)
    return printed.getvalue()


def run_launching_ranks(path: Path) -> str:
    """Run a snippet that launches ranks (`*_dist.py`) here, as `__main__`, its ranks forked from the
    rank server (tests/rank_server.py); fail if a launch hangs."""
    from tests.rank_server import Hung, ranks_from_the_server

    try:
        with ranks_from_the_server(timeout_s=DIST_TIMEOUT_S):
            return run_in_process(path)
    except Hung as error:
        raise AssertionError(f"{path}: {error} (a hung process group?)") from error


def run_snippet(path: Path) -> str:
    """Run a snippet file the way its kind needs (tests/snippet_files.py) and return what it printed."""
    from tests.snippet_files import launches_ranks, starts_processes

    if launches_ranks(path):
        return run_launching_ranks(path)
    return run_in_subprocess(path) if starts_processes(path) else run_in_process(path)


def run_in_subprocess(path: Path, traced: bool = True) -> str:
    """Run a snippet that starts its own processes; fail on a non-zero exit or a hang. Its processes
    trace themselves under `--cov` (their snippet lines count), unless `traced` is False: a page
    fence's script is no snippet file. Tracing starts after their `import torch` (tests/late_coverage)."""
    base = untraced_environment()
    if traced and (config := os.environ.get("COVERAGE_PROCESS_CONFIG")) is not None:
        path_first = os.pathsep.join(filter(None, [str(LATE_COVERAGE), os.environ.get("PYTHONPATH")]))
        base |= {"SNIPPET_COVERAGE_CONFIG": config, "PYTHONPATH": path_first}  # tracing starts after torch
    env = {**base, "PYTHONWARNINGS": "error::DeprecationWarning,error::FutureWarning"}
    try:
        done = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=DIST_TIMEOUT_S, env=env
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"{path}: still running after {DIST_TIMEOUT_S} s (a hung process group?)") from error
    if done.returncode != 0:
        raise AssertionError(f"{path}: exited with {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout
