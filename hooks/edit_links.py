"""Hook: an "Edit this page" link on every page, without setting `repo_url`.

`repo_url` would also make Material fetch repository facts from the GitHub API in every reader's
browser; the site makes no third-party requests. Material shows the edit button for any page with an
`edit_url`, so this hook sets it from `extra.source`.
"""

from __future__ import annotations

from pathlib import Path


def edit_url(repository: str, branch: str, docs_dir: str, page: str) -> str:
    """The GitHub editor URL of a page (`page` relative to the docs folder)."""
    return f"{repository.rstrip('/')}/edit/{branch}/{docs_dir}/{page}"


def on_page_markdown(markdown, page, config, **kwargs):
    source = config.extra["source"]
    docs_dir = Path(config.docs_dir).relative_to(Path(config.config_file_path).parent).as_posix()
    page.edit_url = edit_url(source["repository"], source["branch"], docs_dir, page.file.src_uri)
    return markdown
