"""`copy_sources`: a copy of the site sources for a test to build or break, given the build's caches
only when no build of this run is writing them."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

import tests.conftest as shared_fixtures
from tests.conftest import BUILD_CACHES, SHARED_BUILD_LOCK, SITE_SOURCES, copy_sources


@pytest.fixture
def sources(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "root"
    for name in SITE_SOURCES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if "." in name:
            (root / name).write_text(name)
        else:
            (root / name / "__pycache__").mkdir(parents=True)
            (root / name / "kept.txt").write_text(name)
    for cache in BUILD_CACHES:
        (root / cache).mkdir(parents=True)
        (root / cache / "entry.json").write_text("{}")
    (root / ".cache" / "inductor").mkdir()  # not the build's: never copied
    monkeypatch.setattr(shared_fixtures, "ROOT", root)
    (tmp_path / "workers").mkdir()
    return root


@pytest.fixture
def target(tmp_path: Path) -> Path:
    (tmp_path / "copy").mkdir()  # as the fixtures' temporary folders exist
    return tmp_path / "copy"


def copied(target: Path) -> list[str]:
    return sorted(path.relative_to(target).as_posix() for path in target.rglob("*") if path.is_file())


def test_a_copy_has_the_sources_and_the_builds_caches(sources: Path, target: Path, tmp_path: Path) -> None:
    copy_sources(target, tmp_path / "workers")
    expected = [name if "." in name else f"{name}/kept.txt" for name in SITE_SOURCES]
    assert copied(target) == sorted(expected + [f"{cache}/entry.json" for cache in BUILD_CACHES])


def test_a_copy_made_while_the_shared_build_runs_builds_cold(sources: Path, target: Path, tmp_path: Path) -> None:
    with open(tmp_path / "workers" / SHARED_BUILD_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as `shared_site_build` holds it while it builds
        copy_sources(target, tmp_path / "workers")
    assert not (target / ".cache").exists()
    assert (target / "docs" / "kept.txt").is_file()


def test_without_workers_the_caches_are_copied_as_they_are(sources: Path, target: Path, tmp_path: Path) -> None:
    copy_sources(target)
    assert all((target / cache / "entry.json").is_file() for cache in BUILD_CACHES)
