"""Hook: give Material's page-loading progress bar an accessible name.

`navigation.instant.progress` puts `<div class="md-progress" role="progressbar">` on every page with no
name, and a progressbar must have one (WCAG 4.1.2; axe-core's `aria-progressbar-name`, serious). The
smallest honest fix is the missing attribute; overriding Material's template partial would fork a
file that Material updates. Every unnamed progressbar in the finished page gets the name.
"""

from __future__ import annotations

import re

NAME = "Loading the page"
_PROGRESSBAR = re.compile(r"""<[a-zA-Z][^<>]*\brole\s*=\s*["']?progressbar\b[^<>]*>""", re.IGNORECASE)
_NAMED = re.compile(r"""\saria-label(?:ledby)?\s*=""", re.IGNORECASE)


def name_progress_bars(html: str, name: str = NAME) -> str:
    """`html` with `aria-label="<name>"` on every progressbar element that has no name."""

    def named(match: re.Match) -> str:
        tag = match.group(0)
        if _NAMED.search(tag):
            return tag
        end = -2 if tag.endswith("/>") else -1
        return f'{tag[:end].rstrip()} aria-label="{name}"{tag[end:]}'

    return _PROGRESSBAR.sub(named, html)


def on_post_page(output, page, config):
    return name_progress_bars(output)


def on_post_template(output_content, template_name, config):
    return name_progress_bars(output_content) if template_name.endswith(".html") else output_content
