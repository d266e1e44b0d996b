from code_captions import (
    UNVERIFIED,
    add_captions,
    add_page_status,
    block_run_mode,
    caption,
    common_runs,
    footer,
    page_status,
    source_links,
)
from run_modes import FILE, PASTE
from snippet_markup import Include
from verification_reports import Run

CPU = Run("cpu", "2.14.1", "CPU", "2026-11-30")
GPU = Run("gpu", "2.11.0", "NVIDIA H100 80GB HBM3", "2026-11-29")


def url_for(include):
    return f"https://example.test/{include.path}#{include.section}"


def test_a_caption_follows_each_included_fence_at_its_indentation():
    page = '??? success "Panel"\n    ```python\n    --8<-- "snippets/a/b/c.py:demo"\n    ```\nafter\n'
    out = add_captions(page, lambda includes, before: f"CAPTION {includes[0].path}").split("\n")
    assert out[:4] == page.split("\n")[:4]
    assert out[4:8] == ["", "    CAPTION snippets/a/b/c.py", "    { .snippet-source }", ""]
    assert out[-2:] == ["after", ""]


def test_fences_without_includes_get_no_caption():
    page = "```text\nplain\n```\n"
    assert add_captions(page, lambda includes, before: "CAPTION") == page


def test_a_continuation_fence_is_captioned_knowing_the_fences_it_continues():
    page = (
        '```python\n--8<-- "snippets/a.py:x"\n```\n\n```{.python continuation}\n--8<-- "snippets/a.py:y"\n```\n'
        '\n```python\n--8<-- "snippets/b.py:z"\n```\n'
    )
    seen = []
    add_captions(page, lambda includes, before: seen.append(([i.section for i in before], includes[0].section)) or "")
    assert seen == [([], "x"), (["x"], "y"), ([], "z")]


def test_a_verified_block_shows_each_run_and_links_its_source():
    include = Include("snippets/a/b/c.py", "demo", False)
    text = caption([include], [CPU, GPU], url_for)
    assert '<span class="verified verified--cpu" title="Passed on 2026-11-30">✓ CPU · torch 2.14.1</span>' in text
    assert "✓ GPU · torch 2.11.0 · NVIDIA H100 80GB HBM3" in text
    assert "source + checks: [`snippets/a/b/c.py`](https://example.test/snippets/a/b/c.py#demo)" in text


def test_an_unverified_block_says_so_and_shows_no_tick():
    text = caption([Include("snippets/a/b/c.py", "demo", False)], [], url_for)
    assert UNVERIFIED in text and "✓" not in text


def test_a_block_of_several_includes_counts_only_runs_that_verified_all_of_them():
    a, b = Include("snippets/a.py", "x", False), Include("snippets/b.py", "y", False)
    runs = {a: [CPU, GPU], b: [CPU]}
    assert common_runs([a, b], runs.get) == [CPU]


def test_the_page_status_counts_verified_blocks_or_says_the_build_is_unverified():
    assert "Verified: " in page_status({CPU: 3}, 4) and "3 of 4 code blocks (2026-11-30)" in page_status({CPU: 3}, 4)
    assert "Unverified build" in page_status({}, 4) and "✓" not in page_status({}, 4)


def test_the_page_status_goes_under_the_title():
    assert add_page_status("intro\n# Title\nbody", "STATUS") == "intro\n# Title\n\nSTATUS\n\nbody"
    assert add_page_status("body", "STATUS") == "\nSTATUS\n\nbody"


def test_source_links_name_every_included_file():
    links = source_links([Include("snippets/a.md", "x", False), Include("snippets/b.py", "y", False)], url_for)
    assert links.startswith("source + checks: [`snippets/a.md`](https://example.test/snippets/a.md#x)")
    assert " · [`snippets/b.py`](" in links
    assert source_links([Include("snippets/a.md", "x", False)], url_for).startswith("source: [")  # nothing to check


def test_the_caption_says_how_to_run_the_block():
    include = Include("snippets/a/b/c.py", "demo", False)
    assert "Runs pasted at the `python` prompt" in caption([include], [CPU], url_for, PASTE)
    assert "Runs saved as a `.py` file" in caption([include], [CPU], url_for, FILE)


def test_the_run_mode_comes_from_the_code_the_block_shows():
    files = {
        "snippets/a/flat.py": '"""d."""\n# --8<-- [start:demo]\nx = 1\nprint(x)\n# --8<-- [end:demo]\n',
        "snippets/a/gap.py": (
            '"""d."""\n# --8<-- [start:demo]\ndef f():\n    x = 1\n\n    return x\n# --8<-- [end:demo]\n'
        ),
        "snippets/a/run_dist.py": '"""d."""\n# --8<-- [start:demo]\nx = 1\n# --8<-- [end:demo]\n',
        "snippets/a/own.py": (
            '"""d."""\n# runs in its own process: why\n# --8<-- [start:demo]\nx = 1\n# --8<-- [end:demo]\n'
        ),
    }

    def text_of(include):
        return files[include.path]

    def mode(path):
        return block_run_mode([Include(path, "demo", False)], text_of)

    assert mode("snippets/a/flat.py") == PASTE
    assert mode("snippets/a/gap.py") == FILE  # the blank line ends the body at the prompt
    assert mode("snippets/a/run_dist.py") == FILE  # it starts processes, which import the main file
    assert mode("snippets/a/own.py") == FILE  # it declares that it needs a fresh process


def test_only_a_build_given_test_reports_says_every_example_ran():
    assert "Every example ran" not in footer("Written for readers.", [])
    assert "no test report" in footer("Written for readers.", [])
    assert footer("Written for readers.", [object()]).startswith("Written for readers. Every example ran")
