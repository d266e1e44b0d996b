from types import SimpleNamespace

import pytest
from material.plugins.search.plugin import Parser
from mkdocs.exceptions import PluginError
from search_exclusions import exclude_from_search, on_config, searched_html


def test_code_blocks_captions_status_and_match_selects_leave_the_index():
    html = (
        '<p class="verification-status verification-status--none">Unverified</p>'
        '<div class="language-python highlight"><pre><code>x</code></pre></div>'
        '<p class="snippet-source"><a href="#">src</a></p>'
        '<select aria-labelledby="i"><option>a</option></select>'
    )
    assert exclude_from_search(html) == (
        '<p class="verification-status verification-status--none" data-search-exclude>Unverified</p>'
        '<div class="language-python highlight" data-search-exclude><pre><code>x</code></pre></div>'
        '<p class="snippet-source" data-search-exclude><a href="#">src</a></p>'
        '<select aria-labelledby="i" data-search-exclude><option>a</option></select>'
    )


def test_prose_panels_and_other_blocks_stay_searchable():
    html = '<p>Use <code>zero_grad</code>.</p><div class="admonition success"><p class="admonition-title">T</p></div>'
    html += "<div><p>plain</p></div>"
    assert exclude_from_search(html) == html
    marked = exclude_from_search('<div class="language-text highlight">')
    assert exclude_from_search(marked) == marked  # idempotent


def test_answers_a_drill_hides_stay_out_of_search_previews():
    for hidden in ("drill-card__back", "drill-spot__hints", "drill__answer"):
        html = f'<div class="{hidden}" hidden="hidden"><p>the answer</p></div>'
        assert exclude_from_search(html).startswith(f'<div class="{hidden}" hidden="hidden" data-search-exclude>')
    front = '<div class="drill-card__front"><p>the question</p></div>'
    assert exclude_from_search(front) == front


def test_drill_code_and_graph_labels_leave_the_index():
    code = '<div aria-label="The code" class="drill-spot__code highlight" role="group">'
    assert exclude_from_search(code) == code[:-1] + " data-search-exclude>"
    graph = '<svg class="drill-graph" viewBox="0 0 9 9">'
    assert exclude_from_search(graph) == graph[:-1] + " data-search-exclude>"
    assert exclude_from_search('<svg class="twemoji">') == '<svg class="twemoji">'  # icons are no drills


def test_a_coding_problems_grader_checklist_leaves_the_index_but_its_answer_panels_stay():
    html = '<details class="info"><summary>What the grader checks</summary><p>x</p></details>'
    assert exclude_from_search(html).startswith('<details class="info" data-search-exclude>')
    kept = '<details class="success"><summary>What a strong answer covers</summary></details>'
    assert exclude_from_search(kept) == kept


def indexed(html: str) -> list[tuple[str | None, str, str]]:
    """What Material's search parser keeps of `html`: (section id, title, text) of each indexed section."""
    parser = Parser()
    parser.feed(html)
    parser.close()
    return [(s.id, "".join(s.title), "".join(s.text)) for s in parser.data if not s.is_excluded()]


PAGE = (
    '<h1 id="t">Title</h1><p>Intro <code>zero_grad</code>.</p>'
    '<div class="language-python highlight" data-search-exclude><pre><code><span>x</span></code></pre></div>'
    '<p class="snippet-source" data-search-exclude><a href="#">src</a></p>'
    '<h2 id="q1">Q1</h2><p>The answer.</p>'
    "<select data-search-exclude><option>a</option></select><input data-search-exclude>"
    '<details class="info" data-search-exclude><summary>Grader</summary><div><div>a</div></div></details>'
)


def test_search_reads_the_page_without_the_elements_it_skips_and_indexes_the_same():
    cut = searched_html(PAGE)
    assert cut == (
        '<h1 id="t">Title</h1><p>Intro <code>zero_grad</code>.</p>'
        '<h2 id="q1">Q1</h2><p>The answer.</p><input data-search-exclude>'
    )
    assert indexed(cut) == indexed(PAGE) == [(None, "Title", "<p>Intro <code>zero_grad</code>.</p>"),
                                             ("q1", "Q1", "<p>The answer.</p>")]  # fmt: skip


def test_an_excluded_element_with_children_of_its_own_tag_leaves_search_whole():
    # Material's parser compares elements by tag name, so closing the first inner <div> ends the skip
    # and the hints after it were indexed: a spot-the-bug drill's last hint showed in search previews.
    hints = '<h1 id="t">T</h1><div class="drill-spot__hints" data-search-exclude><div>one</div><div>two</div></div>'
    assert "two" in indexed(hints)[0][2]  # the leak, in Material's parser
    assert searched_html(hints) == '<h1 id="t">T</h1>'
    assert indexed(searched_html(hints)) == [(None, "T", "")]


def test_excluded_headings_and_what_holds_one_are_left_to_the_parser():
    heading = '<h2 id="study" data-search-exclude>Study offline</h2><p data-search-exclude>links</p><p>kept</p>'
    assert searched_html(heading) == '<h2 id="study" data-search-exclude>Study offline</h2><p>kept</p>'
    holder = '<div data-search-exclude><h3 id="x">X</h3><p>text</p></div>'
    assert searched_html(holder) == holder
    unclosed = "<p>a</p><div data-search-exclude><p>never closed</p>"
    assert searched_html(unclosed) == unclosed
    nested = "<div data-search-exclude><p data-search-exclude>in</p><div>deeper</div></div><p>after</p>"
    assert searched_html(nested) == "<p>after</p>"


def test_materials_index_is_handed_the_searched_copy_and_the_page_keeps_its_content():
    seen = []
    index = SimpleNamespace(add_entry_from_context=lambda page: seen.append(page.content))
    on_config(SimpleNamespace(plugins={"material/search": SimpleNamespace(search_index=index)}))
    page = SimpleNamespace(content=PAGE)
    index.add_entry_from_context(page)
    assert seen == [searched_html(PAGE)] and page.content == PAGE


def test_a_search_plugin_without_the_method_stops_the_build_saying_what_to_do():
    with pytest.raises(PluginError, match="search_index.add_entry_from_context.*pin the version"):
        on_config(SimpleNamespace(plugins={"material/search": SimpleNamespace()}))
