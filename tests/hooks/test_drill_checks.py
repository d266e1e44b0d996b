"""Every authoring mistake in a drill fails with the page's line and what to write instead.

The checks run through code_from_snippets.find_problems, the function the build and the contract test
call, so these tests also prove that drill problems reach both with `docs/<page>.md:<line>`.
"""

import pytest
from code_from_snippets import find_problems

BUGGY = "import torch\n\nx = torch.ones(2)\ny = x.cuda()\nprint(y)\n"
SNIPPET = (
    '"""A snippet."""\n# --8<-- [start:buggy]\n' + BUGGY + "# --8<-- [end:buggy]\n"
    "# --8<-- [start:fixed]\nimport torch\nprint(1)\n# --8<-- [end:fixed]\n"
)
FILES = {"snippets/tensors/devices/mismatch.py": SNIPPET, "snippets/autograd/graph/other.py": SNIPPET}

SPOT = """/// spot-the-bug | Spot the Bug: Device Mismatch
code: snippets/tensors/devices/mismatch.py:buggy
bug: 4
fix: snippets/tensors/devices/mismatch.py:fixed
hints:
  3: "Making a tensor is fine."

Why line 4 is the bug.
///
"""

STEPS = """/// step-through | Watch the Graph Think
code: snippets/tensors/devices/mismatch.py:fixed
root: loss
graph:
  MulBackward0: [AccumulateGrad(w)]

//// step | Forward
The graph exists.
////

//// step | Backward
nodes: [MulBackward0]

It runs.
////

//// step | Leaf
nodes: [AccumulateGrad(w)]

w.grad is set.
////
///
"""

MATCH = "/// match | Match the Layer\n- `nn.Linear` :: an affine map\n- `nn.ReLU` :: max(x, 0)\n///\n"
DECK = "/// flashcards | Rapid-fire\n\n//// card | Front?\nBack.\n////\n\n///\n"


def problems(page: str) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in find_problems(page, "tensors/devices.md", FILES.get)]


@pytest.mark.parametrize(
    "page", [SPOT, STEPS, MATCH, DECK], ids=["spot-the-bug", "step-through", "match", "flashcards"]
)
def test_each_drill_written_right_passes(page):
    assert problems(page) == []


def edit(page: str, old: str, new: str) -> str:
    assert old in page
    return page.replace(old, new, 1)


@pytest.mark.parametrize(
    ("page", "line", "message"),
    [
        (
            edit(SPOT, "bug: 4", "bug: 4\nlines: 5"),
            4,
            "unknown option `lines` for spot-the-bug (it takes: code, bug, fix, hints)",
        ),
        (
            edit(SPOT, "bug: 4", "bug: 9"),
            3,
            "bug line 9 does not exist: snippets/tensors/devices/mismatch.py:buggy shows 5 lines",
        ),
        (edit(SPOT, "bug: 4", "bug: [4, 2]"), 3, "bug line 2 is blank in snippets/tensors/devices/mismatch.py:buggy"),
        (
            edit(SPOT, "bug: 4", "bug: four"),
            3,
            "`bug` is the buggy line's number, e.g. `bug: 5`, or a list: `bug: [5, 6]`",
        ),
        (
            edit(SPOT, '  3: "', '  7: "'),
            6,
            "hint line 7 does not exist: snippets/tensors/devices/mismatch.py:buggy shows 5 lines",
        ),
        (edit(SPOT, '  3: "', '  4: "'), 6, "line 4 is the bug: hints are for the wrong lines"),
        (
            edit(SPOT, "fix: snippets/tensors/devices/mismatch.py:fixed\n", ""),
            1,
            "spot-the-bug needs the option `fix:`",
        ),
        (
            edit(SPOT, "mismatch.py:buggy", "missing.py:buggy"),
            2,
            "`code`: snippet file snippets/tensors/devices/missing.py does not exist",
        ),
        (
            edit(SPOT, "mismatch.py:fixed", "mismatch.py:fixd"),
            4,
            "`fix`: snippets/tensors/devices/mismatch.py has no section 'fixd' (it has: buggy, fixed)",
        ),
        (
            edit(SPOT, "snippets/tensors/devices/mismatch.py:buggy", "snippets/autograd/graph/other.py:buggy"),
            2,
            '`code`: "snippets/autograd/graph/other.py" is outside this page\'s snippet folder',
        ),
        (
            edit(SPOT, "mismatch.py:buggy", "mismatch.py"),
            2,
            '`code`: "snippets/tensors/devices/mismatch.py" includes the whole file',
        ),
        (edit(SPOT, "Why line 4 is the bug.\n", ""), 1, "spot-the-bug needs an explanation"),
        (edit(SPOT, "| Spot the Bug: Device Mismatch", ""), 1, "`spot-the-bug` needs a title after `|`"),
        (
            edit(STEPS, "nodes: [MulBackward0]", "nodes: [SumBackward0]"),
            12,
            "node `SumBackward0` is not in the graph (it has: MulBackward0, AccumulateGrad(w))",
        ),
        (
            edit(STEPS, "nodes: [AccumulateGrad(w)]", "nodes: [MulBackward0]"),
            18,
            "node `MulBackward0` already runs in the step on line 12",
        ),
        (
            edit(STEPS, "graph:\n  MulBackward0: [AccumulateGrad(w)]\n", ""),
            3,
            "`root` needs `code` (the snippet that builds the graph) and `graph`",
        ),
        (
            edit(STEPS, "  MulBackward0: [AccumulateGrad(w)]", "  MulBackward0: [MulBackward0]"),
            4,
            "`graph` has a cycle",
        ),
        (
            edit(STEPS, "root: loss", "root: loss\nsteps: 3"),
            4,
            "unknown option `steps` for step-through (it takes: code, root, graph)",
        ),
        (
            edit(STEPS, "//// step | Forward", "Loose text.\n\n//// step | Forward"),
            7,
            "only `//// step | Title` blocks go inside a step-through",
        ),
        (edit(STEPS, "It runs.\n", ""), 11, "a step needs narration"),
        (
            edit(MATCH, "- `nn.ReLU` :: max(x, 0)", "- `nn.ReLU`"),
            3,
            "this match item has no target: write `- item :: what it matches`",
        ),
        (
            edit(MATCH, "- `nn.ReLU` :: max(x, 0)", "- `nn.ReLU` :: an affine map"),
            3,
            "target `an affine map` is used twice (line 2)",
        ),
        (edit(MATCH, "- `nn.ReLU` :: max(x, 0)\n", ""), 1, "a match needs at least two `- item :: target` lines"),
        (edit(MATCH, "- `nn.ReLU`", "`nn.ReLU`"), 3, "only `- item :: target` lines go inside a match"),
        (
            edit(DECK, "//// card | Front?\nBack.\n////\n", ""),
            1,
            "empty deck: add cards, each `//// card | Front` … `////`",
        ),
        (edit(DECK, "Back.\n", ""), 3, "card `Front?` has no back"),
        (edit(DECK, "//// card | Front?", "//// card"), 3, "`card` needs its front (the prompt) after `|`"),
        (edit(DECK, "\n///\n", "\n"), 1, "`/// flashcards` is never closed"),
        (MATCH.replace("/// match", "/// matching"), 1, "unknown drill `matching`"),
    ],
    ids=lambda value: value[:40] if isinstance(value, str) else str(value),
)
def test_each_authoring_mistake_is_named_with_its_line(page, line, message):
    found = problems(page)
    assert any(number == line and text.startswith(message) for number, text in found), found


def test_drill_problems_sit_among_the_pages_other_problems_in_line_order():
    page = "```python\nimport torch\n```\n\n" + edit(SPOT, "bug: 4", "bug: 9")
    assert [line for line, _ in problems(page)] == [2, 7]
