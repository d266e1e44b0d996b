import pytest
from code_from_snippets import find_problems, snippet_folder

SNIPPET = "# --8<-- [start:demo]\nprint(1)\n# --8<-- [end:demo]\n# --8<-- [start:open]\n"
FILES = {"snippets/tensors/anatomy/strides.py": SNIPPET}


def problems(page: str) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in find_problems(page, "tensors/anatomy.md", FILES.get)]


def test_snippet_folder_mirrors_the_page_path():
    assert snippet_folder("tensors/anatomy.md") == "snippets/tensors/anatomy/"
    assert snippet_folder("index.md") == "snippets/index/"


def test_a_page_of_includes_is_fine_in_panels_too():
    page = (
        '```python\n--8<-- "snippets/tensors/anatomy/strides.py:demo"\n```\n\n'
        '??? success "What a strong answer covers"\n    ```{.python continuation}\n'
        '    --8<-- "snippets/tensors/anatomy/strides.py:demo"\n    ```\n'
    )
    assert problems(page) == []


def test_inline_code_is_named_with_its_line_and_the_fix():
    ((line, message),) = problems("# Page\n\n```python\nimport torch\n```\n")
    assert line == 4
    assert "code written in the page (`import torch`)" in message
    assert "snippets/tensors/anatomy/<item>.py" in message


def test_a_missing_file_is_named():
    ((line, message),) = problems('```python\n--8<-- "snippets/tensors/anatomy/nope.py:demo"\n```')
    assert line == 2
    assert message == "snippet file snippets/tensors/anatomy/nope.py does not exist: create it or fix the path"


def test_a_missing_section_lists_the_sections_that_exist():
    ((line, message),) = problems('```python\n--8<-- "snippets/tensors/anatomy/strides.py:nope"\n```')
    assert line == 2
    assert "has no section 'nope' (it has: demo)" in message


def test_an_unclosed_section_points_at_its_start_marker():
    ((_, message),) = problems('```python\n--8<-- "snippets/tensors/anatomy/strides.py:open"\n```')
    assert message.startswith("snippets/tensors/anatomy/strides.py:4: section 'open' is never closed")


@pytest.mark.parametrize(
    ("include", "expected"),
    [
        ('"snippets/tensors/anatomy/strides.py"', "includes the whole file"),
        ('"snippets/tensors/anatomy/strides.py:1:2"', "includes line numbers"),
        ('"snippets/autograd/basics/x.py:demo"', "outside this page's snippet folder"),
    ],
)
def test_includes_must_name_a_section_of_the_pages_own_folder(include, expected):
    ((_, message),) = problems(f"```python\n--8<-- {include}\n```")
    assert expected in message


def test_bare_fence_options_and_stray_includes_and_open_fences_are_refused():
    page = '```python continuation\n```\n--8<-- "snippets/tensors/anatomy/strides.py:demo"\n```python\n'
    found = problems(page)
    assert (1, "fence options must use the brace form") in [(line, m.split(",")[0]) for line, m in found]
    assert (3, "snippet include outside a code fence: includes belong inside ```python fences") in found
    assert (4, "code fence is never closed") in found
