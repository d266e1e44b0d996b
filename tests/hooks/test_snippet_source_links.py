from snippet_source_links import add_source_links


def url_for(include):
    return f"https://example.test/{include.path}#{include.section}"


def test_a_link_to_each_included_file_follows_the_fence_at_its_indentation():
    page = '??? success "Panel"\n    ```python\n    --8<-- "snippets/a/b/c.py:demo"\n    ```\nafter\n'
    out = add_source_links(page, url_for).split("\n")
    assert out[:4] == page.split("\n")[:4]
    caption = out[5]
    assert caption.startswith("    :material-check-decagram:")
    assert '[`snippets/a/b/c.py`](https://example.test/snippets/a/b/c.py#demo "The verified source' in caption
    assert out[6] == "    { .snippet-source }"
    assert out[-2:] == ["after", ""]


def test_fences_without_includes_are_left_alone():
    page = "```text\nplain\n```\n"
    assert add_source_links(page, url_for) == page
