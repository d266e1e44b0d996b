"""Hook: load docs/javascripts/storage-guard.js right after Material defines `__md_get`.

Material keeps the reader's palette (and a few other settings) in localStorage and reads them with
`__md_get`, a one-line inline script in `<head>` that calls `JSON.parse` unguarded: one corrupt value
throws, and Material's scripts stop (no search, no palette, no instant navigation). The guard wraps
`__md_get` so that a value that is not JSON is removed and read as absent. It must run after that
inline script and before the first read (the palette script at the top of `<body>`), so it is a plain
synchronous `<script src>` inserted right after the definition: same origin, so the strict CSP
(hooks/content_security_policy.py, listed after this hook) allows it without a hash.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

GUARD = "javascripts/storage-guard.js"
_DEFINITION = re.compile(r"<script>(?:(?!</script>).)*?__md_get=.*?</script>", re.DOTALL)


def add_guard(html: str, src: str, where: str = "page") -> str:
    """`html` with `<script src="{src}"></script>` right after Material's `__md_get` definition.
    Raises ValueError (naming `where`) if the page has no such definition: Material changed, look again."""
    definition = _DEFINITION.search(html)
    if definition is None:
        raise ValueError(f"{where}: Material's __md_get definition was not found; check {GUARD} still applies")
    return f'{html[: definition.end()]}<script src="{src}"></script>{html[definition.end() :]}'


def _checked(html: str, src: str, where: str) -> str:
    try:
        return add_guard(html, src, where)
    except ValueError as error:
        raise PluginError(str(error)) from error


def on_post_page(output, page, config):
    return _checked(output, get_relative_url(GUARD, page.url), page.file.src_uri)


def on_post_template(output_content, template_name, config):
    if not template_name.endswith(".html"):  # 404.html: served at any depth, so an absolute path
        return output_content
    base = urlsplit(config.site_url or "/").path or "/"
    return _checked(output_content, base.rstrip("/") + "/" + GUARD, template_name)
