from snippet_markup import Include, is_block_marker, parse_include, read_sections


def test_parses_an_include_with_a_section_and_keeps_indentation_irrelevant():
    assert parse_include('    --8<-- "snippets/a/b/c.py:demo"') == Include("snippets/a/b/c.py", "demo", False)


def test_tells_line_number_includes_and_whole_files_apart():
    assert parse_include('--8<-- "snippets/c.py:3:5"') == Include("snippets/c.py", None, True)
    assert parse_include('--8<-- "snippets/c.py"') == Include("snippets/c.py", None, False)


def test_escaped_and_ordinary_lines_are_not_includes():
    assert parse_include(';--8<-- "snippets/c.py:demo"') is None
    assert parse_include("x = 1  # --8<-- not an include") is None
    assert is_block_marker("--8<--")
    assert not is_block_marker('--8<-- "snippets/c.py:demo"')


def test_reads_sections_with_their_shown_lines():
    text = "import x\n# --8<-- [start:demo]\na = 1\nb = 2\n# --8<-- [end:demo]\n"
    sections, problems = read_sections(text)
    assert problems == []
    assert (sections["demo"].first_line, sections["demo"].last_line) == (3, 4)


def test_reports_unclosed_duplicated_and_orphan_markers_with_their_lines():
    text = "# --8<-- [start:a]\n# --8<-- [end:a]\n# --8<-- [start:a]\n# --8<-- [end:b]\n# --8<-- [start:c]\n"
    sections, problems = read_sections(text)
    assert set(sections) == {"a"}
    assert [(p.line, p.message.split(";")[0].split(":")[0]) for p in problems] == [
        (3, "section 'a' is started twice"),
        (4, "end marker for section 'b' has no start marker before it"),
        (5, "section 'c' is never closed"),
    ]


def test_a_drill_option_names_a_section_like_an_include_does():
    from snippet_markup import parse_target

    assert parse_target("snippets/a/b/c.py:buggy") == Include("snippets/a/b/c.py", "buggy", False)
    assert parse_target(" snippets/c.py:3:5 ") == Include("snippets/c.py", None, True)


def test_section_lines_are_what_the_site_shows_for_every_section():
    from snippet_markup import section_lines

    from tests.plugin.pages import _site_snippet_preprocessor
    from tests.snippet_files import all_snippets, repo_relative

    for path in all_snippets():
        text = path.read_text(encoding="utf-8")
        for name in read_sections(text)[0]:
            shown = _site_snippet_preprocessor().run([f'--8<-- "{repo_relative(path)}:{name}"'])
            assert section_lines(text, name) == shown, f"{repo_relative(path)}:{name}"
    assert section_lines("x = 1\n", "missing") == []
