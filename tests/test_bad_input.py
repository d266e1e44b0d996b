"""A contributor's mistake fails loudly, naming the file (and page and line), and says how to fix it.

Each test breaks a throwaway copy of the site on purpose and checks the failure message.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import mkdocs_build
from tests.expected_output import check_output
from tests.run_code import run_in_process, untraced_environment

# A page the build renders early (MkDocs renders docs/ in folder order): a broken include there stops the
# build in seconds instead of after sixty other pages. Its snippets live in snippets/<page path>/.
PAGE = Path("docs/architectures/cnns.md")
SNIPPETS = "snippets/architectures/cnns"


def first_include(project: Path) -> tuple[int, str]:
    """The 1-based line and text of the page's first include."""
    for number, line in enumerate((project / PAGE).read_text().split("\n"), start=1):
        if "--8<--" in line:
            return number, line
    raise AssertionError(f"{PAGE} has no include to break")


def replace_line(project: Path, number: int, new: str) -> None:
    lines = (project / PAGE).read_text().split("\n")
    lines[number - 1] = new
    (project / PAGE).write_text("\n".join(lines))


def failed_build_log(project: Path) -> str:
    build = mkdocs_build(project, project / "site")
    assert build.returncode != 0, "the build should have failed:\n" + build.log
    page_html = project / "site" / PAGE.relative_to("docs").with_suffix("") / "index.html"
    assert not page_html.exists(), "a broken page was still written"
    return build.log


def test_a_missing_snippet_file_fails_the_build_naming_page_and_line(project_copy: Path) -> None:
    number, line = first_include(project_copy)
    replace_line(project_copy, number, re.sub(r'"snippets/([^"]+?)/[^/"]+\.py:', r'"snippets/\1/missing.py:', line))
    log = failed_build_log(project_copy)
    assert f"{PAGE}:{number}: snippet file {SNIPPETS}/missing.py does not exist" in log


def test_a_missing_section_fails_the_build_naming_page_line_and_known_sections(project_copy: Path) -> None:
    number, line = first_include(project_copy)
    replace_line(project_copy, number, re.sub(r':[a-z][-_a-z0-9]*"', ':no-such-section"', line))
    log = failed_build_log(project_copy)
    assert re.search(rf"{PAGE}:{number}: {SNIPPETS}/\w+\.py has no section 'no-such-section'", log)


def test_code_written_in_a_page_fails_the_build_naming_page_and_line(project_copy: Path) -> None:
    number, line = first_include(project_copy)
    replace_line(project_copy, number, line.replace(line.strip(), "x = torch.ones(3)"))
    log = failed_build_log(project_copy)
    assert f"{PAGE}:{number}: code written in the page (`x = torch.ones(3)`)" in log


def test_a_failing_snippet_fails_its_test_naming_file_and_line(tmp_path: Path) -> None:
    snippet = tmp_path / "snippets" / "tensors" / "anatomy" / "broken.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text('"""Broken on purpose."""\nimport torch\n\ntorch.ones(2, 3) @ torch.ones(2, 3)\n')
    with pytest.raises(RuntimeError, match="cannot be multiplied") as failure:
        run_in_process(snippet)
    # the report points at the snippet's own line, where the reader would look
    assert (snippet, 4) in [(Path(str(entry.path)), entry.lineno + 1) for entry in failure.traceback]


def test_output_that_drifts_from_its_comment_fails_naming_the_file() -> None:
    with pytest.raises(AssertionError, match=r"snippets/x\.py: printed output differs") as failure:
        check_output("print(1)\n# > 2\n", "1\n", where="snippets/x.py")
    assert "-2\n+1" in str(failure.value)


def test_a_failing_page_fence_names_the_page_line_and_snippet_line(project_copy: Path) -> None:
    number, line = first_include(project_copy)
    snippet_path, section = re.search(r'"(snippets/[^":]+):([-\w]+)"', line).groups()
    snippet = project_copy / snippet_path
    start = f"# --8<-- [start:{section}]\n"
    snippet.write_text(snippet.read_text().replace(start, start + "raise ValueError('broken on purpose')\n", 1))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-x", str(PAGE)],
        cwd=project_copy,
        capture_output=True,
        text=True,
        env=untraced_environment(),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ValueError: broken on purpose" in done.stdout
    assert f"fence: {PAGE}:{number - 1}" in done.stdout  # the fence opens on the line above the include
    assert f"snippet: {snippet_path}:" in done.stdout


def test_a_malformed_lab_fails_the_build_naming_file_line_and_fix(project_copy: Path) -> None:
    lab = project_copy / "snippets" / "tensors" / "lab.py"
    lines = lab.read_text().split("\n")
    number = next(n for n, line in enumerate(lines, start=1) if line.startswith('# %% tags=["check"]'))
    lines[number - 1] = "# %%"
    lab.write_text("\n".join(lines))
    build = mkdocs_build(project_copy, project_copy / "site")
    assert build.returncode != 0, "the build should have failed:\n" + build.log
    expected = f'snippets/tensors/lab.py:{number}: expected a `# %% tags=["check"]` cell here'
    assert expected in build.log and "Add or change a lab" in build.log
