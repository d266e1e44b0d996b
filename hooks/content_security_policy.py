"""Hook: a strict Content-Security-Policy `<meta>` as the first element of every page's `<head>`.

GitHub Pages sends no custom headers, so the policy can only travel in the page. Material emits a few
small inline scripts on every page, and one of them differs with the page's depth (`__md_scope`), so
the policy allows exactly the inline scripts of the page it is written into, by their SHA-256, computed
from the finished HTML (`on_post_page`, and `on_post_template` for 404.html). No 'unsafe-inline' and
no 'unsafe-eval' for scripts: an injected script, event-handler attribute or `eval` is refused.

Each directive is what the built site needs, checked in Chromium by tests/browser/test_csp.py:
- `style-src 'self'`: the pages have no `style` attributes or `<style>` elements; Material and
  docs/javascripts/drills.js set styles through the CSSOM, which a CSP does not restrict.
- `img-src 'self' data:`: Material's icons are `data:` SVGs in its stylesheet (mask images).
- `font-src 'none'`: `theme.font: false`, so the site loads no font at all (system fonts); a
  self-hosted font would need 'self' here.
- `connect-src 'self'`: the search index and the pages that instant navigation fetches.
- `worker-src 'self'`: Material's search runs in a web worker loaded from the site.
- `object-src 'none'`, `base-uri 'self'`, `form-action 'none'`: no plugins; no `<base>` tricks; the
  only forms are Material's search box and palette toggle, which never submit.
`frame-ancestors`, `report-uri` and `sandbox` are ignored in a `<meta>` policy, so they are left out.

The hook is loud: it raises on markup the policy would silently break (an inline event handler, a
`javascript:` URL, an inline style) and on a page that already declares a policy.
"""

from __future__ import annotations

import base64
import hashlib
import re

from mkdocs.exceptions import PluginError

DIRECTIVES: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),  # + the page's inline script hashes
    ("style-src", "'self'"),
    ("img-src", "'self' data:"),
    ("font-src", "'none'"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'none'"),
)

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r"""([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_TAG = re.compile(r"<([a-zA-Z][\w:-]*)(\s[^<>]*)?>")
_CLASS_ONLY = re.compile(r'\s+class="[^"]*"\s*')  # most tags: a highlighted code block's token spans
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href"}
_STYLE_ELEMENT = re.compile(r"<style\b", re.IGNORECASE)
_EXISTING_POLICY = re.compile(r"""<meta\b[^>]*http-equiv\s*=\s*["']?content-security-policy""", re.IGNORECASE)
_CHARSET = re.compile(r"<meta\b[^>]*\bcharset\s*=[^>]*>", re.IGNORECASE)
# The MIME types a browser runs as classic scripts (HTML's list), plus modules.
_JAVASCRIPT_TYPES = {
    "",
    "module",
    "application/ecmascript",
    "application/javascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
}


def attributes(tag_inside: str) -> dict[str, str]:
    """`' id="x" type=module defer'` -> {"id": "x", "type": "module", "defer": ""} (names lower-cased)."""
    found = {}
    for name, double, single, bare in _ATTR.findall(tag_inside):
        found.setdefault(name.lower(), double or single or bare)
    return found


def inline_scripts(html: str) -> list[str]:
    """The text of every inline script the browser would run: no `src`, and a JavaScript type (a JSON
    data block such as Material's `__config` is not run, so it needs no hash)."""
    scripts = []
    for match in _SCRIPT.finditer(html):
        attrs = attributes(match.group(1))
        if "src" not in attrs and attrs.get("type", "").strip().lower() in _JAVASCRIPT_TYPES:
            scripts.append(match.group(2))
    return scripts


def script_hash(text: str) -> str:
    """The CSP source for one inline script. The HTML parser turns CR LF and lone CR into LF before the
    script sees its text, so the hash is taken over the text as the browser holds it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(hashes: list[str]) -> str:
    """The policy string, with `hashes` (each a quoted 'sha256-…' source) added to script-src."""
    unique = list(dict.fromkeys(hashes))
    parts = []
    for name, sources in DIRECTIVES:
        if name == "script-src" and unique:
            sources = " ".join([sources, *unique])
        parts.append(f"{name} {sources}")
    return "; ".join(parts)


def problems(html: str) -> list[str]:
    """Markup that this policy would block without a word in the page: say so at build time instead."""
    found = []
    outside_scripts = _SCRIPT.sub("<script>", html)
    for tag in _TAG.finditer(outside_scripts):
        inside = tag.group(2) or ""
        if not inside or _CLASS_ONLY.fullmatch(inside):
            continue  # no attribute, or a class alone: nothing here the policy would block
        shown = tag.group(0)[:80]
        for name, value in attributes(inside).items():
            if name.startswith("on"):
                found.append(f"an inline event handler `{name}` ({shown}; an unescaped quote in an attribute?)")
            elif name in _URL_ATTRIBUTES and value.strip().lower().startswith("javascript:"):
                found.append(f"a javascript: URL ({shown})")
            elif name == "style":
                found.append(f"a style attribute ({shown})")
    if _STYLE_ELEMENT.search(outside_scripts):
        found.append("a <style> element")
    if _EXISTING_POLICY.search(html):
        found.append("a Content-Security-Policy <meta> already")
    return found


def add_policy(html: str, where: str = "page") -> str:
    """`html` with its policy `<meta>` inserted as the first element of `<head>`.

    Raises ValueError (naming `where`) on a page without `<head>`, on markup the policy would break
    (see `problems`), and when the policy would push the `<meta charset>` past the first 1024 bytes,
    where browsers stop looking for it.
    """
    head = _HEAD.search(html)
    if head is None:
        raise ValueError(f"{where}: no <head> to put the Content-Security-Policy in")
    found = problems(html)
    if found:
        raise ValueError(f"{where}: the Content-Security-Policy would break " + "; ".join(found))
    content = policy([script_hash(text) for text in inline_scripts(html)])
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content}">'
    result = html[: head.end()] + meta + html[head.end() :]
    charset = _CHARSET.search(result)
    if charset and len(result[: charset.end()].encode("utf-8")) > 1024:
        raise ValueError(f"{where}: the policy pushes <meta charset> past the first 1024 bytes")
    return result


def _checked(html: str, where: str) -> str:
    try:
        return add_policy(html, where)
    except ValueError as error:
        raise PluginError(str(error)) from error


def on_post_page(output, page, config):
    return _checked(output, page.file.src_uri)


def on_post_template(output_content, template_name, config):
    if template_name.endswith(".html"):  # 404.html; sitemap.xml is not a page
        return _checked(output_content, template_name)
    return output_content
