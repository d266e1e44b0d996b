from drill_syntax import (
    find_drills,
    graph_layers,
    graph_nodes,
    indent_options,
    option_span,
    snippet_targets,
    split_match_item,
    walk,
)

SPOT = """# Page

/// spot-the-bug | Spot the Bug: Device Mismatch
code: snippets/tensors/devices/device_mismatch.py:buggy
bug: 5
fix: snippets/tensors/devices/device_mismatch.py:fixed
hints:
  2: "`Module.to()` moves parameters in place and returns `self`, so this line is fine."
  3: "`eval()` switches Dropout and BatchNorm behaviour; it moves nothing."

Explanation in Markdown.
///
"""

DECK = """/// flashcards | Rapid-fire: tensors

//// card | `torch.tensor` vs `torch.as_tensor`?
Answer.

```python
--8<-- "snippets/tensors/index/rapid_fire.py:transpose"
```
////

//// card | Second
Back: with a colon.
////

///
"""


def test_reads_a_spot_the_bug_with_its_options_and_their_lines():
    (drill,), problems = find_drills(SPOT)
    assert problems == []
    assert (drill.kind, drill.title, drill.line, drill.end_line) == (
        "spot-the-bug",
        "Spot the Bug: Device Mismatch",
        3,
        12,
    )
    assert drill.options["bug"] == 5
    assert drill.options["hints"][3].startswith("`eval()`")
    assert (drill.line_of("code"), drill.line_of("bug"), drill.line_of("hints.3")) == (4, 5, 9)
    assert drill.text() == "Explanation in Markdown."
    assert snippet_targets(drill) == [
        ("code", 4, "snippets/tensors/devices/device_mismatch.py:buggy"),
        ("fix", 6, "snippets/tensors/devices/device_mismatch.py:fixed"),
    ]


def test_cards_nest_in_their_deck_and_keep_fences_and_colons_in_their_backs():
    (deck,), problems = find_drills(DECK)
    assert problems == []
    assert [card.title for card in deck.children] == ["`torch.tensor` vs `torch.as_tensor`?", "Second"]
    first, second = deck.children
    assert '--8<-- "snippets/tensors/index/rapid_fire.py:transpose"' in first.text()
    assert second.options == {} and second.text() == "Back: with a colon."  # cards take no options
    assert [drill.kind for drill in walk([deck])] == ["flashcards", "card", "card"]


def test_a_block_opener_inside_a_code_fence_is_code_not_a_drill():
    drills, problems = find_drills("```text\n/// match | Not a drill\n///\n```\n")
    assert drills == [] and problems == []


def test_structure_mistakes_are_named_with_their_lines():
    page = "/// spot-the-bugs | Typo\n///\n\n//// card | Loose card\nback\n////\n\n/// match | Open\n- a :: b\n"
    _, problems = find_drills(page)
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (1, "unknown drill `spot-the-bugs`"),
        (4, "`card` belongs inside a `/// flashcards` block"),
        (8, "`/// match` is never closed"),
    ]


def test_indented_drills_wrong_nesting_and_stray_closers_are_refused():
    _, problems = find_drills(
        "    /// match | In a panel\n    ///\n/// flashcards | D\n/// card | Same slashes\nx\n///\n///\n////\n"
    )
    messages = [(p.line, p.message) for p in problems]
    assert (1, "drills are written at the left margin, not indented (not inside panels or lists)") in messages
    assert any(line == 4 and "needs more slashes than its parent" in m for line, m in messages)
    assert any(line == 8 and m.startswith("`////` closes nothing here") for line, m in messages)


def test_invalid_yaml_options_point_at_the_offending_line():
    _, problems = find_drills("/// spot-the-bug | T\ncode: a.py:x\nhints:\n  2: `unquoted` text\n\nx\n///\n")
    ((line, message),) = [(p.line, p.message) for p in problems]
    assert line == 4 and "not valid YAML" in message and "quote text" in message


def test_an_option_given_twice_is_named():
    _, problems = find_drills("/// spot-the-bug | T\nbug: 1\nbug: 2\n\nx\n///\n")
    assert [(p.line, p.message) for p in problems] == [(3, "option `bug` is given twice (line 2)")]


def test_options_end_at_the_first_line_that_is_not_an_option():
    lines = ["code: a", "hints:", "  2: x", "", "text"]
    assert option_span(lines, 0) == 3
    assert option_span(["Narration starts here.", "bug: 1"], 0) == 0


def test_options_are_indented_for_pymdownx_and_nothing_else_is():
    lines = SPOT.split("\n")
    out = indent_options(lines)
    assert out[3:9] == ["    " + line for line in lines[3:9]]
    assert out[:3] == lines[:3] and out[9:] == lines[9:]
    assert indent_options(DECK.split("\n")) == DECK.split("\n")  # decks and cards take no options


def test_match_items_split_on_a_spaced_double_colon():
    assert split_match_item("`nn.Linear` :: an affine map") == ("`nn.Linear`", "an affine map")
    assert split_match_item("`a::b` :: uses `::` inside") == ("`a::b`", "uses `::` inside")
    assert split_match_item("nn.Linear ::") is None
    assert split_match_item("nn.Linear") is None
    assert split_match_item(":: a target alone") is None


def test_graph_nodes_and_layers_follow_the_edges():
    graph = {"Pow": ["Add"], "Add": ["Mul", "Acc(b)"], "Mul": ["Acc(w)"]}
    assert graph_nodes(graph) == ["Pow", "Add", "Mul", "Acc(b)", "Acc(w)"]
    assert graph_layers(graph) == {"Pow": 0, "Add": 1, "Mul": 2, "Acc(b)": 2, "Acc(w)": 3}
    assert graph_layers({"A": ["B", "C"], "B": ["C"]})["C"] == 2  # the longest path decides
    assert graph_layers({"A": ["B"], "B": ["A"]}) is None
