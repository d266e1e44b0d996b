from edit_links import edit_url


def test_the_edit_link_opens_the_page_source_on_the_branch():
    assert (
        edit_url("https://github.com/o/r/", "main", "docs", "tensors/anatomy.md")
        == "https://github.com/o/r/edit/main/docs/tensors/anatomy.md"
    )
