from page_fences import find_fences


def test_finds_top_level_and_indented_fences_with_line_numbers():
    page = 'text\n```python\nx = 1\n```\n\n??? success "Panel"\n    ~~~~{.python continuation}\n    y\n    ~~~~\n'
    first, second = find_fences(page)
    assert (first.info, first.opening_line, first.closing_line, first.body) == ("python", 2, 4, ((3, "x = 1"),))
    assert (second.indent, second.info, second.opening_line, second.closing_line) == (
        "    ",
        "{.python continuation}",
        7,
        9,
    )


def test_a_shorter_or_different_marker_does_not_close_a_fence():
    (fence,) = find_fences("````md\n```\n~~~~\n````")
    assert fence.body == ((2, "```"), (3, "~~~~"))
    assert fence.closing_line == 4


def test_an_unclosed_fence_runs_to_the_end_of_the_page():
    (fence,) = find_fences("```python\nx = 1")
    assert fence.closing_line is None
    assert fence.body == ((2, "x = 1"),)


def test_inline_code_is_not_a_fence():
    assert find_fences("Use ```x``` or `y` inline.") == []
