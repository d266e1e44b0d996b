"""The built HTML itself: every page opens its `<head>` with a strict Content-Security-Policy whose script
hashes are exactly the page's inline scripts, and no form can send anything anywhere.

Read with the standard library's HTML parser, independently of the hook that writes the policy
(hooks/content_security_policy.py); the browser tests (tests/browser/test_csp.py) check that Chromium
enforces it with zero violations.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import Build

EXPECTED = {
    "default-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'none'"],
    "connect-src": ["'self'"],
    "worker-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'none'"],
}


@dataclass
class Page(HTMLParser):
    """What a page declares: its first element in <head>, its policy, inline scripts and forms."""

    first_in_head: tuple[str, dict] | None = None
    policy: str | None = None
    inline_scripts: list[str] = field(default_factory=list)
    forms: list[dict] = field(default_factory=list)
    submit_targets: list[dict] = field(default_factory=list)
    _in_head: bool = False
    _script: list[str] | None = None

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=False)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if self._in_head and self.first_in_head is None:
            self.first_in_head = (tag, attributes)
        self._in_head = self._in_head or tag == "head"
        if tag == "meta" and attributes.get("http-equiv", "").lower() == "content-security-policy":
            self.policy = attributes.get("content")
        if tag == "script" and "src" not in attributes and attributes.get("type", "") in ("", "module"):
            self._script = []
        if tag == "form":
            self.forms.append(attributes)
        if "formaction" in attributes or (tag in ("button", "input") and attributes.get("type") == "submit"):
            self.submit_targets.append({"tag": tag, **attributes})

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.inline_scripts.append("".join(self._script))
            self._script = None


def read(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


@pytest.fixture(scope="module")
def pages(built_site: Build) -> dict[str, Page]:
    assert built_site.returncode == 0, built_site.log
    found = {str(path.relative_to(built_site.site)): read(path) for path in sorted(built_site.site.rglob("*.html"))}
    assert "404.html" in found and "index.html" in found and len(found) > 10
    return found


def test_every_page_opens_its_head_with_a_policy_that_allows_exactly_its_inline_scripts(pages) -> None:
    for name, page in pages.items():
        assert page.first_in_head is not None and page.first_in_head[0] == "meta", name
        assert page.first_in_head[1].get("http-equiv") == "Content-Security-Policy", name
        directives = {parts[0]: parts[1:] for parts in (d.split() for d in page.policy.split(";")) if parts}
        script_src = directives.pop("script-src")
        assert directives == EXPECTED, name
        assert script_src[0] == "'self'", name
        assert sorted(script_src[1:]) == sorted({sha256(text) for text in page.inline_scripts}), name
        assert page.inline_scripts, name  # Material's own inline scripts are there, and hashed
        assert "unsafe" not in page.policy, name


def test_inline_script_hashes_differ_with_page_depth(pages) -> None:
    # Material's `__md_scope` script names the site root relative to the page
    assert pages["index.html"].policy != pages["tensors/anatomy/index.html"].policy


def test_no_form_sends_anything(pages) -> None:
    """Material's search and palette forms have no action and are never submitted; nothing else is a
    form, and no button or input could submit one elsewhere."""
    kinds = set()
    for name, page in pages.items():
        for form in page.forms:
            assert "action" not in form and "method" not in form, f"{name}: {form}"
            kinds.add(form.get("name") or form.get("data-md-component"))
        assert page.submit_targets == [], name
    assert kinds == {"search", "palette"}
