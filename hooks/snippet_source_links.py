"""Hook: under every included code block, a link to the snippet file (and lines) it came from.

A reader sees where the verified code lives and can open the file, with its hidden checks, in the
repository. `add_source_links` is pure and unit-tested; `on_page_markdown` only supplies the URLs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from page_fences import find_fences
from snippet_markup import Include, parse_include, read_sections


def add_source_links(markdown: str, url_for: Callable[[Include], str]) -> str:
    """Append a source-link line after each fence whose body is snippet includes."""
    lines = markdown.split("\n")
    captions: dict[int, str] = {}  # closing line number -> caption lines to insert after it
    for fence in find_fences(markdown):
        includes = [include for _, text in fence.body if (include := parse_include(text))]
        if not includes or fence.closing_line is None:
            continue
        links = " · ".join(
            f'[`{include.path}`]({url_for(include)} "The verified source of this example")' for include in includes
        )
        captions[fence.closing_line] = (
            f'\n{fence.indent}:material-check-decagram:{{ title="Ran in CI" }} {links}\n'
            f"{fence.indent}{{ .snippet-source }}\n"
        )
    out = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        if number in captions:
            out.append(captions[number])
    return "\n".join(out)


def on_page_markdown(markdown, page, config, **kwargs):
    root = Path(config.config_file_path).parent
    source = config.extra["source"]
    base = f"{source['repository'].rstrip('/')}/blob/{source['branch']}"

    def url_for(include: Include) -> str:
        file = root / include.path
        sections, _ = read_sections(file.read_text(encoding="utf-8")) if file.is_file() else ({}, [])
        section = sections.get(include.section)
        anchor = f"#L{section.first_line}-L{section.last_line}" if section else ""
        return f"{base}/{include.path}{anchor}"

    return add_source_links(markdown, url_for)
