"""The page tests see what a reader sees: includes expanded by pymdownx, fences inside panels collected."""

from __future__ import annotations

import pytest

from tests.plugin.pages import ExpandingParser, _included_files, expand_includes
from tests.snippet_files import ROOT

PAGE = '''# Page

```python
--8<-- "snippets/conventions/snippet_file.py:demo"
```

??? success "What a strong answer covers"
    Text.

    ```python
    --8<-- "snippets/conventions/snippet_file.py:demo"
    ```
'''


def test_includes_expand_to_the_shown_section_and_remember_their_page_line():
    lines, origin = expand_includes(PAGE)
    assert "import torch" in lines
    assert origin[lines.index("import torch")] == 3  # 0-based: the include line of the first fence


def test_fences_inside_collapsed_panels_are_collected_at_their_page_lines():
    fences = [t for t in ExpandingParser().parse(PAGE) if t.type == "fence"]
    assert [f.map[0] + 1 for f in fences] == [3, 10]  # 1-based lines of the two ``` openers
    assert all("y = x.t()" in f.content for f in fences)
    assert "--8<--" not in fences[1].content


def test_content_tabs_are_refused_rather_than_silently_skipped():
    with pytest.raises(ValueError, match="line 1: content tabs"):
        ExpandingParser().parse('=== "Tab"\n\n    ```python\n    x = 1\n    ```\n')


def test_a_missing_snippet_names_the_page_line():
    with pytest.raises(ValueError, match="line 2: .*could not be found"):
        expand_includes('```python\n--8<-- "snippets/conventions/nope.py:demo"\n```')


def test_a_fence_knows_the_snippet_files_it_shows_so_gpu_only_ones_skip_on_the_cpu_lane(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE.replace("snippet_file.py:demo", "timing_cuda.py:demo", 1))
    assert _included_files(page, 3) == ["snippets/conventions/timing_cuda.py"]
    assert _included_files(page, 10) == ["snippets/conventions/snippet_file.py"]
    assert _included_files(ROOT / "docs" / "index.md", 1) == []


def test_a_fence_that_starts_processes_runs_as_a_script_in_its_own_process():
    from tests.plugin.pages import _run_as_script

    printed = _run_as_script("import os, sys\nprint(__name__, sys.argv[0].endswith('fence.py'))\n")
    assert printed == "__main__ True\n"
