import re
from pathlib import Path

import markdown
import pytest
from drill_blocks import DrillError, DrillsExtension

SNIPPET = '''"""A snippet."""
# --8<-- [start:buggy]
import torch

x = torch.ones(2)
y = x * 2  # the bug
# --8<-- [end:buggy]
# --8<-- [start:fixed]
import torch
print(1)
# --8<-- [end:fixed]
'''


@pytest.fixture
def render(tmp_path: Path):
    (tmp_path / "snippets" / "p").mkdir(parents=True)
    (tmp_path / "snippets" / "p" / "s.py").write_text(SNIPPET)

    def render(page: str) -> str:
        md = markdown.Markdown(
            extensions=[
                DrillsExtension(base_path=str(tmp_path), caption=lambda include: f"Verified: `{include.path}`"),
                "pymdownx.superfences",
                "pymdownx.highlight",
                "pymdownx.inlinehilite",  # stashes inline code: labels must still read it
                "pymdownx.snippets",
            ],
            extension_configs={"pymdownx.snippets": {"base_path": [str(tmp_path)], "check_paths": True}},
        )
        return md.convert(page)

    return render


SPOT = """/// spot-the-bug | Spot the Bug: `y` Doubles
code: snippets/p/s.py:buggy
bug: 4
fix: snippets/p/s.py:fixed
hints:
  3: "`ones` is fine."

The *explanation*.
///
"""


def test_spot_the_bug_renders_choices_hints_and_a_hidden_answer(render):
    html = render(SPOT)
    assert '<section aria-labelledby="spot-the-bug-y-doubles-title" class="drill drill--spot" data-bug="4"' in html
    assert re.findall(r'data-line="(\d+)" tabindex', html.split("drill-spot__hints")[0]) == ["1", "3", "4"]
    assert "Which line is the bug?" in html
    assert (
        '<div class="drill-spot__hints" hidden="hidden">\n<div data-line="3"><code>ones</code> is fine.</div>' in html
    )
    answer = html.split('<div class="drill__answer" hidden="hidden">')[1]
    assert "<em>explanation</em>" in answer and "<strong>The fix:</strong>" in answer
    assert '<span class="nb">print</span>' in answer  # the fixed section, highlighted
    assert html.count('<p class="snippet-source">Verified: <code>snippets/p/s.py</code></p>') == 2
    assert 'data-progress-key="#spot-the-bug-y-doubles"' in html
    assert 'data-progress-label="Spot the Bug: y Doubles"' in html  # inline code read back from the stash


def test_a_block_inside_a_code_fence_is_shown_as_code(render):
    html = render("````markdown\n" + SPOT + "````\n")
    assert "drill--spot" not in html and "/// spot-the-bug" in html
    assert "code: snippets/p/s.py:buggy" in html  # the options were not indented


def test_a_step_through_draws_each_steps_graph_and_a_counter(render):
    html = render(
        "/// step-through | Watch\ncode: snippets/p/s.py:fixed\ngraph:\n  MulBackward0: [AccumulateGrad(x)]\n\n"
        "//// step | Forward\nRecorded.\n////\n\n//// step | Backward\nnodes: [MulBackward0]\n\nRuns.\n////\n\n"
        "//// step | Leaf\nnodes: [AccumulateGrad(x)]\n\nDone.\n////\n///\n"
    )
    steps = re.findall(
        r'<div class="drill-steps__step" data-nodes="([^"]*)" data-step="(\d)"( hidden="hidden")?>', html
    )
    assert [(step, bool(hidden)) for _, step, hidden in steps] == [("1", False), ("2", True), ("3", True)]
    diagrams = re.findall(r"<svg .*?</svg>", html)
    assert len(diagrams) == 3
    assert "▶" not in diagrams[0] and "▶ MulBackward0" in diagrams[1]
    assert "✓ MulBackward0" in diagrams[2] and "▶ AccumulateGrad(x)" in diagrams[2]
    assert '<p aria-live="polite" class="drill-steps__counter">Step 1 of 3</p>' in html
    assert 'aria-disabled="true" class="drill-button drill-steps__prev"' in html


def test_steps_without_a_graph_carry_only_their_own_markdown(render):
    html = render("/// step-through | Plain\n\n//// step | One\nA *b*.\n////\n//// step | Two\nC.\n////\n///\n")
    assert "drill-steps__diagram" not in html and "<svg" not in html
    assert "<p>A <em>b</em>.</p>" in html


def test_a_match_becomes_cards_to_drag_and_a_list_to_choose_from(render):
    html = render("/// match | Match\n- `nn.Linear` :: affine `x @ W.T`\n- `nn.ReLU` :: a max with 0\n///\n")
    assert re.findall(r'data-target="(t\d)"', html) == ["t1", "t2"]
    assert re.findall(r'data-answer="(t\d)"', html) == ["t1", "t2"]
    assert '<div aria-hidden="true" class="drill-match__pool">' in html
    options = re.findall(r'<option value="(t?\d?)">([^<]*)</option>', html.split("<select")[1])
    assert options == [("", "Choose…"), ("t2", "a max with 0"), ("t1", "affine x @ W.T")]
    assert 'aria-labelledby="match-item-1" class="drill-match__select"' in html
    # the chosen answer is shown in full next to the list (a <select> cuts long text at its width)
    assert (
        '<span class="drill-match__choice"><span aria-hidden="true" class="drill-match__shown">Choose…</span>' in html
    )


def test_a_spot_the_bug_with_two_buggy_lines_says_so(render):
    html = render(SPOT.replace("bug: 4", "bug: [3, 4]"))
    assert 'data-bug="3 4"' in html
    assert "This code has two buggy lines: find them all." in html


def test_a_deck_shows_its_first_card_and_runs_fences_in_the_backs(render):
    html = render(
        "/// flashcards | Deck\n\n//// card | One?\nFirst back.\n////\n\n"
        '//// card | Two?\n```python\n--8<-- "snippets/p/s.py:fixed"\n```\n////\n\n///\n'
    )
    assert re.findall(r'<li class="drill-card" data-card="(\d)"( hidden="hidden")?>', html) == [
        ("1", ""),
        ("2", ' hidden="hidden"'),
    ]
    assert html.count('<div class="drill-card__back" hidden="hidden">') == 2
    assert '<span class="nb">print</span>' in html
    assert '<p aria-live="polite" class="drill-cards__counter">Card 1 of 2</p>' in html


def test_two_drills_with_one_title_get_two_anchors(render):
    html = render("/// match | Same\n- a :: b\n- c :: d\n///\n\n/// match | Same\n- a :: b\n- c :: d\n///\n")
    assert re.findall(r'<section aria-labelledby="[^"]*" class="[^"]*" data-drill="match" id="([^"]+)"', html) == [
        "same",
        "same_1",
    ]


def test_a_drill_the_build_check_would_refuse_raises_instead_of_rendering_as_text(render):
    with pytest.raises(DrillError, match="unknown option"):
        render(SPOT.replace("bug: 4", "bug: 4\nline: 2"))
    with pytest.raises(DrillError, match="not an existing snippet file and section"):
        render(SPOT.replace("s.py:buggy", "nope.py:buggy"))
