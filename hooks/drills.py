"""Hook: turn on the drill blocks (hooks/drill_blocks.py) for every page.

Why a hook and not a `markdown_extensions:` entry: MkDocs imports the extensions listed there by module
name while it validates mkdocs.yml, before it loads any hook, and hooks/ is not importable then (MkDocs
puts a hook's folder on the import path only while it imports that hook). This hook imports the
extension while its folder is on the path, and `on_config` appends an instance to the extensions every
page is rendered with (MkDocs and Material accept instances there). The options it would have had in
mkdocs.yml come from the config: snippet paths start at the repository root, and the caption under a
drill's code is hooks/code_captions.py's caption, from the same test reports, so it never shows a tick
that no test run earned.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from code_captions import caption, load_reports, snippet_text, source_url
from drill_blocks import DrillsExtension
from snippet_markup import Include
from verification_reports import Report, runs_verifying


def caption_maker(root: Path, source: dict, reports: list[Report]) -> Callable[[Include], str]:
    """include -> the caption Markdown: the runs that verified that file as it is now, and its lines' link."""
    text_of = snippet_text(root)
    url_for = source_url(source, text_of)

    def caption_for(include: Include) -> str:
        return caption([include], runs_verifying(reports, include.path, text_of(include)), url_for)

    return caption_for


def on_config(config):
    root = Path(config.config_file_path).parent
    make_caption = caption_maker(root, config.extra["source"], load_reports(root))
    config.markdown_extensions.append(DrillsExtension(base_path=str(root), caption=make_caption))
    return config
