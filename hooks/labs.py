"""Hook: the practice labs — `snippets/<chapter>/lab.py` — as notebook pages rendered by mkdocs-jupyter.

- on_files: each lab becomes `<chapter>/lab.ipynb` (hooks/lab_format.py: stable cell ids, so
  mkdocs-jupyter's cache hits), generated into .cache/labs/ (again only when its inputs changed) and
  handed to the build; the page is
  `<chapter>/lab/` and mkdocs-jupyter copies the notebook next to it for download (`include_source`).
  It runs before mkdocs-jupyter's own on_files, which only renders files already in the list.
- on_page_markdown: "Edit this page" opens the lab's source, not the generated notebook.
- on_page_content: mkdocs-jupyter's HTML in the site's markup (hooks/lab_html.py), with what verified
  the lab (the test reports hooks/code_captions.py reads) and the download and "Open in Colab" links
  under the title. Colab opens the committed `snippets/<chapter>/lab.ipynb`,
  which tests/test_labs.py keeps identical to what this hook generates (`make labs` rewrites it).
- The coding round's practice notebooks (hooks/coding_labs.py): one per page, `coding/<page>/practice.ipynb`,
  generated the same way but not rendered as pages (they would repeat the page and its search hits):
  on_files hands them to the build as plain files next to the page, and on_page_content puts the
  download and "Open in Colab" links under the page's title. Colab opens the committed
  `snippets/coding/<page>/practice.ipynb`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jupytext
import nbformat
from code_captions import badge, load_reports
from coding_labs import KIT, practice_folders, practice_text, problem_files
from coding_labs import NOTEBOOK as PRACTICE
from lab_format import LabError, notebook_json
from lab_html import insert_after_title, lab_links, lab_status, tidy_notebook
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url
from verification_reports import runs_verifying

CACHE = Path(".cache") / "labs"  # under the repository root
NOTEBOOK = "lab.ipynb"


def lab_sources(root: Path) -> list[Path]:
    return sorted((root / "snippets").glob("*/lab.py"))


def notebook_sources(root: Path) -> list[tuple[Path, Path]]:
    """(source, committed notebook) for every lab and every coding-round practice notebook."""
    labs = [(lab, lab.with_suffix(".ipynb")) for lab in lab_sources(root)]
    return labs + [(folder, folder / PRACTICE) for folder in practice_folders(root)]


def lab_text(source: Path, root: Path) -> str:
    """A lab's text: the lab file, or the practice text generated from a coding page's problem folder."""
    return practice_text(source, root) if source.is_dir() else source.read_text(encoding="utf-8")


def write_notebook(lab: Path, target: Path, root: Path) -> None:
    """Write the lab's notebook to `target`, leaving the file untouched when nothing changed."""
    text = notebook_json(lab_text(lab, root), lab.relative_to(root).as_posix())
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


# The code that turns a source into its notebook: a change to any of it, as to the source, makes a new one.
GENERATORS = [
    Path(__file__).with_name(name) for name in ("labs.py", "lab_format.py", "coding_labs.py", "snippet_markup.py")
]


def inputs_key(source: Path, root: Path) -> str:
    """A digest of everything a source's notebook is made from: the lab file (or the problem folder's
    files and the grading kit), its path, the generating hooks, and the jupytext and nbformat versions."""
    files = [source] if source.is_file() else [*sorted(source.glob("*.py")), root / KIT]
    versions = f"{source.relative_to(root).as_posix()} {jupytext.__version__} {nbformat.__version__}"
    digest = hashlib.sha256(versions.encode())
    for path in [*files, *GENERATORS]:
        digest.update(b"\0" + path.read_bytes())
    return digest.hexdigest()


def cached_notebook(source: Path, target: Path, root: Path) -> None:
    """`write_notebook` into the build's cache, skipped when the notebook there was made from the same
    inputs (`inputs_key`): parsing every lab with jupytext took about 2 s of each build."""
    stamp = target.with_name(f"{target.name}.inputs")
    key = inputs_key(source, root)
    if target.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        return
    write_notebook(source, target, root)
    stamp.write_text(key, encoding="utf-8")


TIDIER = Path(__file__).with_name("lab_html.py")  # the code that turns mkdocs-jupyter's HTML into ours


def cached_tidy_notebook(html: str, lab: str, root: Path) -> str:
    """`tidy_notebook(html, lab)`, kept in the build's cache next to the lab's notebook and made again
    only when mkdocs-jupyter's HTML or hooks/lab_html.py changed: BeautifulSoup parsing every lab's
    HTML took about 3.5 s of each build."""
    cached = root / CACHE / Path(lab).parent.name / "lab.tidy.html"
    stamp = cached.with_name(f"{cached.name}.inputs")
    key = hashlib.sha256(TIDIER.read_bytes() + b"\0" + html.encode()).hexdigest()
    if cached.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        return cached.read_text(encoding="utf-8")
    tidy = tidy_notebook(html, lab)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(tidy, encoding="utf-8")
    stamp.write_text(key, encoding="utf-8")
    return tidy


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
            cached_notebook(lab, root / CACHE / uri, root)
        except LabError as error:
            how = ".github/CONTRIBUTING.md, 'Add or change a lab'"
            raise PluginError(f"A lab breaks the lab format ({how}):\n  {error}") from None
        files.append(
            File(uri, src_dir=str(root / CACHE), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)
        )
    for folder in practice_folders(root):
        uri = f"coding/{folder.name}/{PRACTICE}"
        try:
            cached_notebook(folder, root / CACHE / uri, root)
        except LabError as error:
            how = ".github/CONTRIBUTING.md, 'Add a coding problem'"
            raise PluginError(f"A coding problem breaks the format ({how}):\n  {error}") from None
        files.append(File(uri, src_dir=str(root / CACHE), dest_dir=config.site_dir, use_directory_urls=False))
    return files


def on_page_markdown(markdown, page, config, **kwargs):
    if chapter := _chapter(page):
        source = config.extra["source"]
        page.edit_url = f"{source['repository'].rstrip('/')}/edit/{source['branch']}/snippets/{chapter}/lab.py"
    return markdown


def _practice(page, root: Path) -> Path | None:
    """The problem folder of a coding-round page with problems (`coding/attention.md`), None otherwise."""
    folder, _, name = page.file.src_uri.rpartition("/")
    if folder != "coding":
        return None
    found = root / "snippets" / folder / name.removesuffix(".md")
    return found if found.is_dir() and problem_files(found) else None  # what practice_folders keeps


def on_page_content(html, page, config, files):
    root = Path(config.config_file_path).parent
    if practice := _practice(page, root):
        source = config.extra["source"]
        href = get_relative_url(f"coding/{practice.name}/{PRACTICE}", page.url or ".")
        committed = f"snippets/coding/{practice.name}/{PRACTICE}"
        links = lab_links(href, f"coding-{practice.name}.ipynb", committed, source["repository"], source["branch"])
        return insert_after_title(html, links)
    chapter = _chapter(page)
    if not chapter:
        return html
    source = config.extra["source"]
    lab = f"snippets/{chapter}/lab.py"
    runs = runs_verifying(load_reports(root), lab, (root / lab).read_text(encoding="utf-8"))
    status = lab_status([badge(run) for run in runs], max((run.date for run in runs), default=""))
    committed = f"snippets/{chapter}/{NOTEBOOK}"
    links = lab_links(NOTEBOOK, f"{chapter}-lab.ipynb", committed, source["repository"], source["branch"])
    return insert_after_title(cached_tidy_notebook(html, lab, root), f"{status}\n{links}")


if __name__ == "__main__":  # `make labs`: rewrite the committed notebooks Colab opens
    repository_root = Path(__file__).resolve().parent.parent
    for lab_source, notebook in notebook_sources(repository_root):
        write_notebook(lab_source, notebook, repository_root)
        print(notebook.relative_to(repository_root))
