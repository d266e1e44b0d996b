import json

import pytest
from lab_format import LabError, exercises, notebook_json, parse_lab

LAB = """# %% [markdown]
# # Lab · Doubling

# %%
import math

# %% [markdown]
# ## Exercise 1

# %% tags=["exercise"]
def double(x):
    return x  # TODO


# %% tags=["check"]
assert double(2) == 4, "double(2) should be 4"

# %% tags=["solution"]
def double(x):
    return 2 * x
"""


def test_cells_keep_their_kind_and_the_line_of_their_marker():
    cells = parse_lab(LAB, "lab.py")
    assert [(cell.kind, cell.line) for cell in cells] == [
        ("markdown", 1), ("code", 4), ("markdown", 7), ("exercise", 10), ("check", 15), ("solution", 18),
    ]
    (item,) = exercises(cells)
    assert "return x  # TODO" in item.exercise.source and "2 * x" in item.solution.source


def test_the_notebook_has_stable_ids_no_outputs_and_a_hidden_solution():
    notebook = json.loads(notebook_json(LAB, "lab.py"))
    assert [cell["id"] for cell in notebook["cells"]] == [f"cell-{n}" for n in range(6)]
    assert all(cell.get("outputs", []) == [] for cell in notebook["cells"])
    solution = notebook["cells"][5]
    # hidden in JupyterLab (source_hidden) and in Colab (a form: only the #@title line shows)
    assert solution["metadata"] == {"tags": ["solution"], "jupyter": {"source_hidden": True}, "cellView": "form"}
    assert "".join(solution["source"]).startswith("#@title Solution (double-click to show the code)\ndef double(x):")
    assert not any("cellView" in cell["metadata"] for cell in notebook["cells"][:5])
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert notebook_json(LAB, "lab.py") == notebook_json(LAB, "lab.py")  # byte-identical: the cache hits


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (LAB.replace("# %% [markdown]\n# # Lab", "# Lab", 1), r"lab\.py:1: a lab starts with"),
        (LAB.replace("# # Lab · Doubling", "Doubling"), r"lab\.py:1: the first cell is markdown"),
        (LAB.replace('tags=["check"]', 'tags=["test"]'), r"lab\.py:15: cell tags \['test'\]"),
        (LAB.replace('tags=["check"]', ""), r'lab\.py:15: expected a `# %% tags=\["check"\]` cell'),
        (LAB.replace('# %% tags=["exercise"]', "# %%"), r"lab\.py:15: a check cell without an exercise"),
        (LAB.split('# %% tags=["solution"]')[0], r"lab\.py:15: the lab ends inside an exercise: add its solution"),
        (LAB.replace("import math", "# !pip install torch\nimport math"), r"lab\.py:5: labs install nothing"),
        (LAB.replace("# %% [markdown]\n# ## Exercise 1", '# %% [markdown] tags=["exercise"]\n# ## Exercise 1'),
         r"lab\.py:7: a markdown cell can't be tagged"),
    ],
    ids=["no-first-marker", "no-title", "unknown-tag", "check-missing", "orphan-check", "ends-early", "pip", "md-tag"],
)
def test_authoring_mistakes_name_the_line_and_the_fix(broken, message):
    with pytest.raises(LabError, match=message):
        parse_lab(broken, "lab.py")


def test_a_lab_without_exercises_is_refused():
    with pytest.raises(LabError, match=r"at least one"):
        parse_lab("# %% [markdown]\n# # Lab · Nothing\n\n# %%\nx = 1\n", "lab.py")
