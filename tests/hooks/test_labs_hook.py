from pathlib import Path
from types import SimpleNamespace

import pytest
from labs import on_files, on_page_markdown, write_notebook
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from tests.hooks.test_lab_format import LAB


def project(tmp_path: Path, lab: str = LAB) -> SimpleNamespace:
    (tmp_path / "snippets" / "tensors").mkdir(parents=True)
    (tmp_path / "snippets" / "tensors" / "lab.py").write_text(lab)
    return SimpleNamespace(
        config_file_path=str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"), use_directory_urls=True
    )


def test_each_lab_becomes_a_notebook_page_from_the_cache(tmp_path):
    config = project(tmp_path)
    (file,) = on_files(Files([]), config)
    assert file.src_uri == "tensors/lab.ipynb"  # mkdocs-jupyter then makes it the page tensors/lab/
    assert Path(file.abs_src_path) == tmp_path / ".cache" / "labs" / "tensors" / "lab.ipynb"
    before = Path(file.abs_src_path).stat().st_mtime_ns
    on_files(Files([]), config)
    assert Path(file.abs_src_path).stat().st_mtime_ns == before  # rewritten only on change: the cache hits


def test_a_notebook_is_made_again_only_when_its_lab_or_the_code_that_makes_it_changed(tmp_path, monkeypatch):
    import labs

    config = project(tmp_path)
    lab, generator = tmp_path / "snippets" / "tensors" / "lab.py", tmp_path / "generator.py"
    generator.write_text("# the hooks that make notebooks\n")
    monkeypatch.setattr(labs, "GENERATORS", [generator])
    made = []

    def counting(source: Path, target: Path, root: Path) -> None:
        made.append(source)
        write_notebook(source, target, root)

    monkeypatch.setattr(labs, "write_notebook", counting)
    on_files(Files([]), config)
    on_files(Files([]), config)
    assert made == [lab]  # the second build found the notebook made from the same inputs
    lab.write_text(LAB.replace("# # Lab · Doubling", "# # Lab · Doubling (edited)"))
    on_files(Files([]), config)
    generator.write_text("# changed\n")
    on_files(Files([]), config)
    assert made == [lab, lab, lab]
    notebook = tmp_path / ".cache" / "labs" / "tensors" / "lab.ipynb"
    assert "(edited)" in notebook.read_text()


def test_a_labs_page_markup_is_made_again_only_when_its_html_or_the_code_that_tidies_it_changed(tmp_path, monkeypatch):
    import labs

    tidier = tmp_path / "lab_html.py"
    tidier.write_text("# the code that tidies\n")
    monkeypatch.setattr(labs, "TIDIER", tidier)
    tidied = []

    def counting(html: str, lab: str) -> str:
        tidied.append(html)
        return f"<tidy>{html}</tidy>"

    monkeypatch.setattr(labs, "tidy_notebook", counting)
    lab = "snippets/tensors/lab.py"
    assert labs.cached_tidy_notebook("<a>", lab, tmp_path) == "<tidy><a></tidy>"
    assert labs.cached_tidy_notebook("<a>", lab, tmp_path) == "<tidy><a></tidy>"  # from the cache
    assert tidied == ["<a>"]
    assert labs.cached_tidy_notebook("<b>", lab, tmp_path) == "<tidy><b></tidy>"  # mkdocs-jupyter's HTML changed
    tidier.write_text("# changed\n")
    assert labs.cached_tidy_notebook("<b>", lab, tmp_path) == "<tidy><b></tidy>"
    assert tidied == ["<a>", "<b>", "<b>"]
    assert labs.cached_tidy_notebook("<b>", "snippets/data/lab.py", tmp_path) == "<tidy><b></tidy>"  # its own
    assert tidied == ["<a>", "<b>", "<b>", "<b>"]


def test_a_malformed_lab_stops_the_build_with_file_line_and_where_to_read(tmp_path):
    with pytest.raises(PluginError, match=r"(?s)Add or change a lab.*snippets/tensors/lab\.py:1: a lab starts with"):
        on_files(Files([]), project(tmp_path, "import torch\n"))


def test_edit_this_page_opens_the_lab_source():
    config = SimpleNamespace(extra={"source": {"repository": "https://github.com/o/r", "branch": "main"}})
    lab = SimpleNamespace(file=SimpleNamespace(src_uri="tensors/lab.ipynb"), edit_url="old")
    on_page_markdown("", lab, config)
    assert lab.edit_url == "https://github.com/o/r/edit/main/snippets/tensors/lab.py"
    other = SimpleNamespace(file=SimpleNamespace(src_uri="tensors/anatomy.md"), edit_url="kept")
    on_page_markdown("", other, config)
    assert other.edit_url == "kept"


def test_a_coding_page_gets_the_practice_notebook_of_its_problem_folder_only():
    from labs import _practice, practice_folders

    from tests.snippet_files import ROOT

    def page(uri: str) -> SimpleNamespace:
        return SimpleNamespace(file=SimpleNamespace(src_uri=uri))

    coding_pages = sorted((ROOT / "docs" / "coding").glob("*.md"))
    found = [practice for md in coding_pages if (practice := _practice(page(f"coding/{md.name}"), ROOT))]
    assert found == practice_folders(ROOT)  # the same folders the build writes notebooks for
    assert _practice(page("tensors/anatomy.md"), ROOT) is None
