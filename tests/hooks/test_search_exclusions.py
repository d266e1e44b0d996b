from search_exclusions import exclude_from_search


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
