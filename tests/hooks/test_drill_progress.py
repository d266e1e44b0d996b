import re
from types import SimpleNamespace

from drill_progress import (
    Item,
    add_toggles,
    heading_text,
    module_summary,
    modules_from_nav,
    on_page_content,
    on_page_context,
    on_pre_build,
    overview,
    progress_items,
)

PAGE = (
    '<h1 id="tensor-anatomy">Tensor anatomy</h1>\n'
    '<h2 id="q1-which-attributes">Q1 · Which <code>attributes</code>?<a class="headerlink" href="#q1-which-attributes" '
    'title="Permanent link">&para;</a></h2>\n<p>Answer.</p>\n'
    '<h2 id="quantization">Quantization</h2>\n'
    '<section class="drill" id="spot-the-bug-x"><div class="drill__foot"><button aria-pressed="false" '
    'class="progress-toggle" data-progress-key="#spot-the-bug-x" data-progress-label="Spot the Bug: x &amp; y" '
    'type="button">I can answer this</button></div></section>\n'
    '<h2 id="q2-views">Q2 · Views &amp; copies</h2>\n'
)


def test_every_question_gets_a_toggle_and_every_drill_its_pages_key():
    html = add_toggles(PAGE, "tensors/anatomy/")
    assert progress_items(html) == (
        Item("tensors/anatomy/#q1-which-attributes", "Q1 · Which attributes?"),
        Item("tensors/anatomy/#spot-the-bug-x", "Spot the Bug: x & y"),
        Item("tensors/anatomy/#q2-views", "Q2 · Views & copies"),
    )
    assert html.count("I can answer this") == 3  # "Quantization" is not a question
    assert re.search(r'</h2>\n?<button type="button" class="progress-toggle progress-toggle--question"', html)


def test_a_coding_problem_gets_an_i_solved_this_toggle():
    html = add_toggles(
        '<h2 id="c13-attention">C13 · Attention</h2>\n<h2 id="conclusion">Conclusion</h2>\n', "coding/attention/"
    )
    assert progress_items(html) == (Item("coding/attention/#c13-attention", "C13 · Attention"),)
    assert html.count("I solved this") == 1 and "I can answer this" not in html  # "Conclusion" is no problem


def test_heading_text_drops_the_permalink_and_the_tags():
    assert heading_text('Q3 · <code>view</code> vs x<a class="headerlink" href="#q3">&para;</a>') == "Q3 · view vs x"


def page(title: str, url: str, src: str) -> SimpleNamespace:
    return SimpleNamespace(title=title, url=url, file=SimpleNamespace(src_uri=src), is_page=True, children=None)


NAV = [
    SimpleNamespace(
        title="Home",
        is_page=False,
        children=[page("Home", "", "index.md"), page("Progress", "progress/", "progress.md")],
    ),
    SimpleNamespace(
        title="Tensors",
        is_page=False,
        children=[
            page("Tensors", "tensors/", "tensors/index.md"),
            page("Tensor anatomy", "tensors/anatomy/", "tensors/anatomy.md"),
        ],
    ),
]
ITEMS = {"tensors/anatomy/": (Item("tensors/anatomy/#q1-a", "Q1 · A"), Item("tensors/anatomy/#drill", "Spot the Bug"))}


def test_modules_follow_the_nav_and_keep_only_pages_with_items():
    (tensors,) = modules_from_nav(NAV, ITEMS)
    assert (tensors.title, tensors.index_uri, tensors.count()) == ("Tensors", "tensors/index.md", 2)
    assert [p.title for p in tensors.pages] == ["Tensor anatomy"]


def test_a_module_summary_links_each_item_relative_to_the_index_page():
    (tensors,) = modules_from_nav(NAV, ITEMS)
    html = module_summary(tensors, "tensors/", "progress/")
    assert (
        '<li class="progress-item" data-progress-key="tensors/anatomy/#q1-a"><a href="anatomy/#q1-a">Q1 · A</a>' in html
    )
    assert '<a href="../progress/">all modules</a>' in html
    assert html.count('class="progress-count" data-progress-total="2"') == 2  # the module and its one page


def test_the_drills_of_pages_outside_the_modules_are_not_counted():
    about = SimpleNamespace(
        title="About", is_page=False, children=[page("Conventions", "conventions/", "conventions.md")]
    )
    items = {**ITEMS, "conventions/": (Item("conventions/#spot-the-bug-demo", "Spot the Bug: demo"),)}
    assert [module.title for module in modules_from_nav([*NAV, about], items)] == ["Tensors"]
    assert 'Overall: <span class="progress-count" data-progress-total="2">' in overview(
        modules_from_nav([*NAV, about], items), "progress/"
    )


def test_the_overview_offers_the_next_and_a_random_unmarked_item():
    html = overview(modules_from_nav(NAV, ITEMS), "progress/")
    assert '<a class="drill-button drill-button--primary progress-next__first" href="../tensors/anatomy/#q1-a">' in html
    assert '<a class="drill-button progress-next__random" href="../tensors/anatomy/#q1-a">Random unmarked</a>' in html


def test_the_overview_lists_modules_with_items_and_offers_a_reset():
    html = overview(modules_from_nav(NAV, ITEMS), "progress/")
    assert "<summary>Tensors · " in html and "<summary>Home" not in html
    assert '<a href="../tensors/anatomy/#q1-a">' in html and '<a href="../tensors/anatomy/">Tensor anatomy</a>' in html
    assert 'class="drill-button progress-reset__ask"' in html
    assert re.search(r'<p class="progress-reset__confirm" hidden>', html)


def test_the_events_collect_items_per_page_and_place_the_lists():
    on_pre_build(None)
    anatomy, index, progress = NAV[1].children[1], NAV[1].children[0], NAV[0].children[1]
    on_page_content(PAGE, anatomy, None, None)
    nav = SimpleNamespace(items=NAV, pages=[*NAV[0].children, *NAV[1].children])
    for current in (index, progress, anatomy):
        current.content = "<p>page</p>"
        on_page_context({}, current, None, nav)
    assert 'class="progress-summary"' in index.content and "Q2 · Views &amp; copies" in index.content
    assert 'class="progress-overview"' in progress.content
    assert anatomy.content == "<p>page</p>"
