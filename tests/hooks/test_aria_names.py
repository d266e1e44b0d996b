from aria_names import name_progress_bars, on_post_page, on_post_template

BAR = '<div class="md-progress" data-md-component="progress" role="progressbar"></div>'


def test_materials_progress_bar_gets_a_name_and_nothing_else_changes():
    html = f"<body><p>role=progressbar in text</p>{BAR}</body>"
    assert name_progress_bars(html) == (
        '<body><p>role=progressbar in text</p><div class="md-progress" data-md-component="progress" '
        'role="progressbar" aria-label="Loading the page"></div></body>'
    )


def test_a_named_bar_keeps_its_name_and_a_self_closing_one_stays_valid():
    named = '<div role="progressbar" aria-labelledby="x"></div><span role=progressbar aria-label="Upload"/>'
    assert name_progress_bars(named) == named
    assert (
        name_progress_bars("<span role='progressbar' />")
        == "<span role='progressbar' aria-label=\"Loading the page\"/>"
    )


def test_pages_and_the_404_template_are_named_and_the_sitemap_is_left_alone():
    assert "aria-label" in on_post_page(BAR, None, None)
    assert "aria-label" in on_post_template(BAR, "404.html", None)
    assert on_post_template(BAR, "sitemap.xml", None) == BAR
