"""An unreported build shows no tick; that the badges come from real test reports is tests/test_contributing.py."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Build

PAGE = Path("tensors") / "anatomy" / "index.html"


def test_a_build_without_reports_says_it_is_unverified(built_site: Build) -> None:
    html = (built_site.site / PAGE).read_text(encoding="utf-8")
    assert "Unverified build" in html
    assert "not verified in this build" in html
    assert "✓" not in html
