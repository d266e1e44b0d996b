import re

from drill_render import code_block, drill_id, graph_svg, highlighted_lines, line_choices


def test_drill_ids_are_heading_like_slugs_made_unique_on_the_page():
    taken: set[str] = set()
    assert drill_id("Spot the Bug: The Silent Killer", taken) == "spot-the-bug-the-silent-killer"
    assert drill_id("Spot the Bug: The Silent Killer", taken) == "spot-the-bug-the-silent-killer_1"
    assert drill_id("Match `nn.Linear` to **its** job", taken) == "match-nnlinear-to-its-job"
    assert drill_id("???", taken) == "drill"


def test_each_line_is_highlighted_on_its_own_even_inside_a_multiline_string():
    lines = ['s = """a', 'b"""', "", "  x = 1  # c"]
    html = highlighted_lines(lines)
    assert len(html) == 4
    for line in html:  # every span opened on a line is closed on it
        assert line.count("<span") == line.count("</span>")
    assert html[3].startswith("  ") and "# c" in html[3]


def test_every_non_blank_line_is_a_numbered_button_and_blank_lines_are_spacers():
    html = line_choices(["import torch", "", "x = torch.ones(2)"])
    buttons = re.findall(r'<button type="button" class="drill-spot__line" data-line="(\d+)" tabindex="(-?\d)">', html)
    assert buttons == [("1", "0"), ("3", "-1")]  # one Tab stop: drills.js moves the 0 with the arrows
    assert '<span class="drill-sr-only">Line 3: </span>' in html
    assert 'drill-spot__line--blank" aria-hidden="true"><span class="drill-spot__no">2</span>' in html


def test_a_code_block_has_the_markup_material_gives_its_copy_button_to():
    html = code_block(["print(1)"])
    assert html.startswith('<div class="language-python highlight"><pre><span></span><code>')
    assert html.endswith("</code></pre></div>")


GRAPH = {
    "PowBackward0": ["AddBackward0"],
    "AddBackward0": ["MulBackward0", "AccumulateGrad(b)"],
    "MulBackward0": ["AccumulateGrad(w)"],
}


def boxes(svg: str) -> dict[str, tuple[float, float, str]]:
    """label -> (x, y, state) of each node box."""
    found = re.findall(
        r'<g class="drill-graph__node ?([^"]*)"><rect x="([\d.]+)" y="([\d.]+)".*?<text[^>]*>(?:[▶✓] )?([^<]+)</text>',
        svg,
    )
    return {label: (float(x), float(y), state) for state, x, y, label in found}


def test_the_graph_is_drawn_top_down_with_running_and_finished_nodes_marked():
    svg = graph_svg(
        GRAPH, active=["MulBackward0"], done=["PowBackward0", "AddBackward0", "AccumulateGrad(b)"], label="The graph"
    )
    placed = boxes(svg)
    assert set(placed) == set(
        ["PowBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad(b)", "AccumulateGrad(w)"]
    )
    assert (
        placed["PowBackward0"][1]
        < placed["AddBackward0"][1]
        < placed["MulBackward0"][1]
        < placed["AccumulateGrad(w)"][1]
    )
    assert placed["MulBackward0"][1] == placed["AccumulateGrad(b)"][1]
    assert placed["AccumulateGrad(w)"][0] == placed["MulBackward0"][0]  # a chain is drawn straight down
    assert placed["MulBackward0"][2] == "is-active" and placed["AddBackward0"][2] == "is-done"
    assert "▶ MulBackward0" in svg and "✓ AddBackward0" in svg  # the state is in the text, not only in colour
    assert svg.count('class="drill-graph__edge"') == 4
    assert (
        'role="img" aria-label="The graph: PowBackward0 → AddBackward0; AddBackward0 → MulBackward0, AccumulateGrad(b);'
        in svg
    )
    assert "Running now: MulBackward0. Already run: PowBackward0, AddBackward0, AccumulateGrad(b)." in svg


def test_an_edge_that_skips_a_row_bends_around_the_boxes_between():
    svg = graph_svg({"A": ["B", "C"], "B": ["C"]}, active=[], done=[], label="")
    assert svg.count("<path d=") == 1 and svg.count("<line ") == 2
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    assert all(
        float(x) + float(w) <= width for x, w in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
    )
