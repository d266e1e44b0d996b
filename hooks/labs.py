"""Hook: the practice labs — `snippets/<chapter>/lab.py` — as notebook pages rendered by mkdocs-jupyter.

- on_files: each lab becomes `<chapter>/lab.ipynb` (hooks/lab_format.py: stable cell ids, so
  mkdocs-jupyter's cache hits), generated into .cache/labs/ and handed to the build; the page is
  `<chapter>/lab/` and mkdocs-jupyter copies the notebook next to it for download (`include_source`).
  It runs before mkdocs-jupyter's own on_files, which only renders files already in the list.
- on_page_markdown: "Edit this page" opens the lab's source, not the generated notebook.
- on_page_content: mkdocs-jupyter's HTML in the site's markup (hooks/lab_html.py), with what verified
  the lab (the test reports hooks/code_captions.py reads) and the download and "Open in Colab" links
  under the title. Colab opens the committed `snippets/<chapter>/lab.ipynb`,
  which tests/test_labs.py keeps identical to what this hook generates (`make labs` rewrites it).
"""

from __future__ import annotations

from pathlib import Path

from code_captions import badge, load_reports
from lab_format import LabError, notebook_json
from lab_html import insert_after_title, lab_links, lab_status, tidy_notebook
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from verification_reports import runs_verifying

CACHE = Path(".cache") / "labs"  # under the repository root
NOTEBOOK = "lab.ipynb"


def lab_sources(root: Path) -> list[Path]:
    return sorted((root / "snippets").glob("*/lab.py"))


def write_notebook(lab: Path, target: Path, root: Path) -> None:
    """Write the lab's notebook to `target`, leaving the file untouched when nothing changed."""
    text = notebook_json(lab.read_text(encoding="utf-8"), lab.relative_to(root).as_posix())
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _chapter(page) -> str | None:
    """The chapter of a lab page (`tensors/lab.ipynb` -> "tensors"), None for other pages."""
    folder, _, name = page.file.src_uri.rpartition("/")
    return folder if name == NOTEBOOK and "/" not in folder else None


@event_priority(100)
def on_files(files, config):
    root = Path(config.config_file_path).parent
    for lab in lab_sources(root):
        uri = f"{lab.parent.name}/{NOTEBOOK}"
        try:
            write_notebook(lab, root / CACHE / uri, root)
        except LabError as error:
            how = ".github/CONTRIBUTING.md, 'Add or change a lab'"
            raise PluginError(f"A lab breaks the lab format ({how}):\n  {error}") from None
        files.append(
            File(uri, src_dir=str(root / CACHE), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)
        )
    return files


def on_page_markdown(markdown, page, config, **kwargs):
    if chapter := _chapter(page):
        source = config.extra["source"]
        page.edit_url = f"{source['repository'].rstrip('/')}/edit/{source['branch']}/snippets/{chapter}/lab.py"
    return markdown


def on_page_content(html, page, config, files):
    chapter = _chapter(page)
    if not chapter:
        return html
    source = config.extra["source"]
    lab = f"snippets/{chapter}/lab.py"
    root = Path(config.config_file_path).parent
    runs = runs_verifying(load_reports(root), lab, (root / lab).read_text(encoding="utf-8"))
    status = lab_status([badge(run) for run in runs], max((run.date for run in runs), default=""))
    committed = f"snippets/{chapter}/{NOTEBOOK}"
    links = lab_links(NOTEBOOK, f"{chapter}-lab.ipynb", committed, source["repository"], source["branch"])
    return insert_after_title(tidy_notebook(html, lab), f"{status}\n{links}")


if __name__ == "__main__":  # `make labs`: rewrite the committed notebooks Colab opens
    repository_root = Path(__file__).resolve().parent.parent
    for lab_source in lab_sources(repository_root):
        write_notebook(lab_source, lab_source.with_suffix(".ipynb"), repository_root)
        print(lab_source.with_suffix(".ipynb").relative_to(repository_root))
