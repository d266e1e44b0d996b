"""Fixtures shared by the build, bad-input and browser tests."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.plugin.site_server import SERVED_AT, SHARED_BUILD, free_port
from tests.run_code import untraced_environment
from tests.snippet_files import ROOT

SITE_SOURCES = ("mkdocs.yml", "pyproject.toml", "docs", "snippets", "hooks", "tests")
# What a build keeps between builds, each entry keyed by its inputs (hooks/highlight_cache.py, hooks/labs.py,
# mkdocs-jupyter): a copy given them builds what a cold build would, in half the time.
BUILD_CACHES = (".cache/highlight", ".cache/labs", ".cache/mkdocs-jupyter")
SHARED_BUILD_LOCK = "built-site.lock"  # held by whoever builds the run's shared site (`shared_site_build`)


@dataclass(frozen=True)
class Build:
    returncode: int
    log: str
    seconds: float
    site: Path
    url: str  # the site_url it was built for


def mkdocs_build(project: Path, site: Path, url: str = "http://127.0.0.1:8000/", reports: Path | None = None) -> Build:
    """`mkdocs build --strict` as the README runs it, in a separate process, given these verification
    reports (none by default: tests must not depend on reports a previous local run left behind)."""
    if reports is None:
        reports = site.parent / f"{site.name}-no-reports"
        reports.mkdir(exist_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        capture_output=True,
        text=True,
        env=untraced_environment(NO_MKDOCS_2_WARNING="1", SITE_URL=url, VERIFICATION_REPORTS=str(reports)),
    )
    return Build(done.returncode, done.stdout + done.stderr, time.perf_counter() - started, site, url)


def shared_site_build(shared: Path) -> Build:
    """The run's one build of the whole site, in `shared`: whoever takes the lock first builds it there
    for the address the controller serves it at (tests/plugin/site_server.py) and records it; everyone
    after reads the record."""
    record = shared / "built-site.json"
    with open(shared / SHARED_BUILD_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not record.is_file():
            url = os.environ.get(SERVED_AT) or f"http://127.0.0.1:{free_port()}/"
            build = mkdocs_build(ROOT, shared / SHARED_BUILD, url)
            fields = {**dataclasses.asdict(build), "site": str(build.site)}
            record.write_text(json.dumps(fields), encoding="utf-8")
        fields = json.loads(record.read_text(encoding="utf-8"))
    return Build(**{**fields, "site": Path(fields["site"])})


NEEDS_BUILD = "built_site"  # the fixture a test needs to read the built site (its own or through another)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The whole site, built once per test session from the working tree, for a free local port.

    Under pytest-xdist the workers share one build (`shared_site_build`) in the session's common
    temporary folder, usually started early by `site_build_started_early`. Tests only read the built
    site (a test that breaks a site works on a copy)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return mkdocs_build(ROOT, tmp_path_factory.mktemp("site"), f"http://127.0.0.1:{free_port()}/")
    return shared_site_build(tmp_path_factory.getbasetemp().parent)  # the same folder for every worker


@pytest.fixture(scope="session", autouse=True)
def site_build_started_early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Under pytest-xdist, the first worker starts the shared build in the background as its first test
    begins, when any test of the run needs it. The tests that need it run last (tests/plugin/
    worker_groups.py), so both workers run other tests meanwhile instead of waiting for it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker != "gw0" or not any(NEEDS_BUILD in item.fixturenames for item in request.session.items):
        yield
        return
    shared = tmp_path_factory.getbasetemp().parent
    command = [sys.executable, "-m", "tests.conftest", str(shared)]
    builder = subprocess.Popen(command, cwd=ROOT, env=untraced_environment(), start_new_session=True)
    yield
    if builder.poll() is None:  # the run stopped before any test needed the build: stop it and its mkdocs
        os.killpg(builder.pid, signal.SIGTERM)
    builder.wait()


def workers_folder(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The folder the pytest-xdist workers of this run share; None when the run has no workers."""
    return tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else None


def copy_sources(target: Path, shared: Path | None = None) -> Path:
    """Copy the site sources (SITE_SOURCES) into `target`, and the build's caches (BUILD_CACHES) unless
    the run's shared build is writing them (`shared`: `workers_folder`; that build holds its lock)."""
    leave_out = shutil.ignore_patterns("__pycache__", "site", "node_modules")
    for name in SITE_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=leave_out)
        else:
            shutil.copy2(source, target / name)
    with contextlib.ExitStack() as unless_building:
        if shared is not None:
            lock = unless_building.enter_context(open(shared / SHARED_BUILD_LOCK, "a"))
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)  # released when the file closes
            except BlockingIOError:
                return target  # being written: the copy builds cold
        for cache in BUILD_CACHES:
            if (ROOT / cache).is_dir():
                shutil.copytree(ROOT / cache, target / cache)
    return target


@pytest.fixture
def project_copy(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway copy of the site sources, for tests that break them on purpose."""
    copy_sources(tmp_path, workers_folder(tmp_path_factory))
    return tmp_path


if __name__ == "__main__":  # site_build_started_early's background build: the shared folder as the argument
    shared_site_build(Path(sys.argv[1]))
