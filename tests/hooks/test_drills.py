import json
from pathlib import Path
from types import SimpleNamespace

from code_captions import load_reports
from drill_blocks import DrillsExtension
from drills import caption_maker, on_config
from snippet_markup import Include
from verification_reports import Report, Run, fingerprint

SNIPPET = '"""S."""\n# --8<-- [start:buggy]\nx = 1\n# --8<-- [end:buggy]\n'
SOURCE = {"repository": "https://github.com/o/r/", "branch": "main"}
CPU = Run("cpu", "2.14.1", "CPU", "2026-11-30")


def project(tmp_path: Path) -> Path:
    (tmp_path / "snippets" / "p").mkdir(parents=True)
    (tmp_path / "snippets" / "p" / "s.py").write_text(SNIPPET)
    return tmp_path


def test_a_drill_caption_links_the_section_and_ticks_only_runs_of_this_exact_file(tmp_path):
    root = project(tmp_path)
    include = Include("snippets/p/s.py", "buggy", False)
    verified = caption_maker(root, SOURCE, [Report(CPU, {"snippets/p/s.py": fingerprint(SNIPPET)})])(include)
    assert "✓ CPU · torch 2.14.1" in verified
    assert "source + checks: [`snippets/p/s.py`](https://github.com/o/r/blob/main/snippets/p/s.py#L3-L3)" in verified
    stale = caption_maker(root, SOURCE, [Report(CPU, {"snippets/p/s.py": fingerprint("old content")})])(include)
    assert "not verified in this build" in stale and "✓" not in stale


def test_reports_come_from_the_folder_the_code_captions_read(tmp_path, monkeypatch):
    folder = tmp_path / "reports"
    folder.mkdir()
    report = {"schema": 1, "lane": "cpu", "torch": "2.14.1", "device": "CPU", "date": "2026-11-30", "snippets": {}}
    (folder / "cpu.json").write_text(json.dumps(report))
    monkeypatch.setenv("VERIFICATION_REPORTS", str(folder))
    assert [r.run for r in load_reports(tmp_path)] == [CPU]


def test_on_config_appends_the_drill_extension_rooted_at_the_repository(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv("VERIFICATION_REPORTS", str(tmp_path / "none"))
    config = SimpleNamespace(
        config_file_path=str(root / "mkdocs.yml"), extra={"source": SOURCE}, markdown_extensions=["toc"]
    )
    assert on_config(config) is config
    extension = config.markdown_extensions[-1]
    assert config.markdown_extensions[0] == "toc" and isinstance(extension, DrillsExtension)
    assert extension.getConfig("base_path") == str(root)
    assert "snippets/p/s.py" in extension.getConfig("caption")(Include("snippets/p/s.py", "buggy", False))


def test_a_malformed_drill_stops_the_real_build_naming_page_and_line(project_copy):
    from tests.conftest import mkdocs_build

    page = project_copy / "docs" / "conventions.md"
    original = page.read_text()
    lines = original.split("\n")
    number = lines.index("bug: 10") + 1
    lines[number - 1] = "bug: 14"
    page.write_text("\n".join(lines))
    build = mkdocs_build(project_copy, project_copy / "site")
    assert build.returncode != 0
    expected = "bug line 14 does not exist: snippets/conventions/zero_grad_order.py:buggy shows 13 lines"
    assert f"docs/conventions.md:{number}: {expected}" in build.log
    assert f"`docs/conventions.md:{number}: {expected}`" in original  # the page quotes this very message
