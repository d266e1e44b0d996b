"""A page fence is proven by a snippet's passing run only when it is exactly what that run executed
(tests/plugin/pages.py): the same statements before the checks, the same `# >` lines, and nothing that
tells the two runs apart. Everything else runs as its own fence."""

from __future__ import annotations

import pytest

from tests.plugin import pages

SNIPPET = '''"""A docstring, the shown program, then the checks."""

# --8<-- [start:demo]
import torch

x = torch.ones(2)
print(x.sum().item())
# > 2.0
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert x.shape == (2,)


if __name__ == "__main__":
    _check()
'''
FENCE = """import torch

x = torch.ones(2)
print(x.sum().item())
# > 2.0
"""
IN_PROCESS = "snippets/demo/page/item.py"
SCRIPT = "snippets/demo/page/item_dist.py"


def reusable(fence: str, snippet: str = SNIPPET, path: str = IN_PROCESS) -> str | None:
    return pages.reusable_snippet(fence, [path], read=lambda _: snippet)


def test_a_fence_showing_the_whole_program_is_proven_by_the_snippet_run() -> None:
    assert reusable(FENCE) == IN_PROCESS
    assert reusable("# a comment the page adds\n" + FENCE) == IN_PROCESS  # comments run nothing


HELPER = "def _helper(n: int) -> int:\n    return n + 1\n\n\n"
WITH_HELPER = SNIPPET.replace("def _check() -> None:", HELPER + "def _check() -> None:")


def test_private_helpers_of_the_checks_define_and_run_nothing_before_them() -> None:
    assert reusable(FENCE, WITH_HELPER) == IN_PROCESS
    assert reusable(FENCE, WITH_HELPER.replace(HELPER, HELPER * 2)) == IN_PROCESS


@pytest.mark.parametrize(
    ("helper", "why"),
    [
        ("def helper():\n    return 1\n\n\n", "a public name: the page could mean it"),
        ("@print\ndef _helper():\n    return 1\n\n\n", "a decorator runs at definition"),
        ("def _helper(n=print('x')):\n    return n\n\n\n", "a default runs at definition"),
        ("def _helper():\n    print('x')\n\n\n", "it prints"),
        ("SEED = 0\n\n\n", "not a function: hidden code after the program"),
    ],
)
def test_anything_else_after_the_program_makes_the_fence_run_itself(helper: str, why: str) -> None:
    assert reusable(FENCE, SNIPPET.replace("def _check() -> None:", helper + "def _check() -> None:")) is None, why


@pytest.mark.parametrize(
    ("fence", "snippet", "why"),
    [
        (FENCE.replace("ones(2)", "ones(3)"), SNIPPET, "one statement differs"),
        (FENCE.replace("# > 2.0", "# > 2.00"), SNIPPET, "the `# >` lines differ"),
        (FENCE + "print(__file__)\n", SNIPPET.replace("# > 2.0\n", "# > 2.0\nprint(__file__)\n"), "__file__"),
        (FENCE + "print(globals())\n", SNIPPET.replace("# > 2.0\n", "# > 2.0\nprint(globals())\n"), "globals"),
        (FENCE, SNIPPET.replace("    assert x.shape", "    print(x)\n    assert x.shape"), "the checks print"),
        (FENCE, SNIPPET.replace("# --8<-- [start:demo]", "SEED = 0  # hidden\n\n# --8<-- [start:demo]"), "hidden code"),
        (FENCE, SNIPPET.replace('if __name__ == "__main__":\n    _check()', "_check()"), "no standard tail"),
    ],
)
def test_any_difference_makes_the_fence_run_itself(fence: str, snippet: str, why: str) -> None:
    assert reusable(fence, snippet) is None, why


def test_a_main_guard_is_the_same_only_when_the_fence_runs_as_a_script() -> None:
    guarded = FENCE.replace("print(", 'if __name__ == "__main__":\n    print(')
    snippet = SNIPPET.replace("print(x.sum().item())", 'if __name__ == "__main__":\n    print(x.sum().item())')
    assert reusable(guarded, snippet, SCRIPT) == SCRIPT  # both run as __main__
    assert reusable(guarded, snippet, IN_PROCESS) is None  # an in-process fence runs as module "fence"


def test_a_script_importing_a_file_next_to_its_snippet_runs_itself(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(pages, "ROOT", tmp_path)
    (tmp_path / "snippets/demo/page").mkdir(parents=True)
    (tmp_path / "snippets/demo/page/helpers.py").write_text("")
    fence = FENCE.replace("import torch\n", "import torch\nimport helpers\n")
    snippet = SNIPPET.replace("import torch\n", "import torch\nimport helpers\n", 1)
    assert reusable(fence, snippet, SCRIPT) is None
    assert reusable(fence, snippet, IN_PROCESS) == IN_PROCESS  # in-process, both import it the same way


def test_only_a_passing_run_of_the_same_text_in_this_session_counts(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(pages, "ROOT", tmp_path)
    monkeypatch.setattr(pages, "_proven", {})
    snippet = tmp_path / IN_PROCESS
    snippet.parent.mkdir(parents=True)
    snippet.write_text(SNIPPET)
    assert pages.reused_snippet_run(FENCE, [IN_PROCESS]) is None  # not run (or not passed) yet
    pages._proven[IN_PROCESS] = pages._digest(IN_PROCESS)
    assert pages.reused_snippet_run(FENCE, [IN_PROCESS]) == f"tests/test_snippets.py::test_snippet[{IN_PROCESS}]"
    snippet.write_text(SNIPPET.replace("assert x.shape", "assert x.numel() == 2 and x.shape"))
    assert pages.reused_snippet_run(FENCE, [IN_PROCESS]) is None  # the file changed since it passed


def _cpu_lane_dist_fences() -> list[tuple[str, int, str | None]]:
    """(page, opening line, the snippet that proves it or None) for each fence showing a `*_dist.py` file."""
    from page_fences import find_fences
    from snippet_markup import parse_include

    from tests.snippet_files import DOCS, ROOT, all_pages, needs_gpu, repo_relative, starts_processes

    found = []
    for page in all_pages(DOCS):
        for fence in find_fences(page.read_text(encoding="utf-8")):
            included = [i.path for _, line in fence.body if (i := parse_include(line.strip()))]
            if included and starts_processes(ROOT / included[0]) and not needs_gpu(ROOT / included[0]):
                source = "\n".join(pages.expand_includes("\n".join(line.strip() for _, line in fence.body))[0])
                found.append((repo_relative(page), fence.opening_line, pages.reusable_snippet(source, included)))
    return found


def test_every_multi_process_fence_is_proven_by_its_snippet() -> None:
    """The expensive case the rule is for (a launch of fresh interpreters that each import torch: 15-25 s
    on the 2-core machine): each `*_dist.py` fence shows its snippet's whole program, so the suite
    launches it once. Shape a new one like the others (checks in `_check`, after the shown program)."""
    fences = _cpu_lane_dist_fences()
    assert fences
    assert [f"{page}:{line}" for page, line, proven in fences if proven is None] == []


def test_workers_group_the_browser_tests_and_each_snippet_with_the_fences_it_proves() -> None:
    from tests.plugin.worker_groups import group_of

    page_tests = [
        "tests/browser/test_site.py::test_every_page_loads[tensors/anatomy-light]",
        "tests/browser/test_csp.py::test_every_page_carries_its_policy[tensors/anatomy-dark]",
        "tests/browser/test_accessibility.py::test_every_page_meets_wcag_22_aa[tensors/anatomy]",
    ]
    assert {group_of(nodeid) for nodeid in page_tests} == {"browser page tensors/anatomy"}
    assert group_of("tests/browser/test_site.py::test_x[index-dark]") == "browser page index"
    assert group_of("tests/browser/test_labs.py::test_x[tensors/lab]") == "browser page tensors/lab"
    search = "tests/browser/test_search.py"
    assert group_of(f"{search}::test_search_finds_the_answer_in_the_top_3") == f"browser {search}"
    assert group_of(f"{search}::test_malformed_query_data_fails[x]") == f"browser {search}"  # not a page
    snippet = "snippets/tensors/anatomy/strides.py"
    assert group_of(f"tests/test_snippets.py::test_snippet[{snippet}]") == f"snippet {snippet}"
    for page, line, proven in _cpu_lane_dist_fences():
        fence = f"{page}::[CodeFence#1][line:{line}]"
        assert group_of(fence) == (f"snippet {proven}" if proven else fence)
    run_mode = "tests/test_run_modes.py::test_a_block_runs_the_way_its_caption_says"
    inductor = "snippets/internals/compiler-internals/inductor_output.py"  # a compile, pasted and run
    assert group_of(f"{run_mode}[docs/internals/compiler-internals.md:235]") == f"snippet {inductor}"
    assert (
        group_of(f"{run_mode}[docs/internals/compiler-internals.md:1]")
        == f"{run_mode}[docs/internals/compiler-internals.md:1]"
    )
    contributing = "tests/test_contributing.py"  # one module fixture: a pytest run and a site build
    assert {group_of(f"{contributing}::test_{x}") for x in "ab"} == {f"file {contributing}"}
    assert group_of("tests/test_lanes.py::test_x") == "tests/test_lanes.py::test_x"
    assert group_of("tests/test_lanes.py::test_x[a]@mine") == "mine"  # a fixed xdist's own suffix wins


def test_the_tests_that_read_the_build_run_last_each_part_in_its_order() -> None:
    from types import SimpleNamespace

    from tests.plugin.worker_groups import needs_build_last

    named = {"page": ["page", "browser", "built_site"], "snippet": ["tmp_path"], "site": ["built_site"], "fence": []}
    items = [SimpleNamespace(name=name, fixturenames=fixtures) for name, fixtures in named.items()]
    assert [item.name for item in needs_build_last(items)] == ["snippet", "fence", "page", "site"]
