"""The snippet contract (docs/conventions.md), rule by rule. Each failure names file and line and the fix."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
from functools import cache
from pathlib import Path

import pytest
from code_from_snippets import find_problems
from drill_syntax import Drill, find_drills, graph_nodes, snippet_targets, walk
from page_fences import find_fences
from snippet_markup import parse_include, parse_target, read_sections, section_lines

from tests.snippet_files import DOCS, ROOT, all_pages, all_snippets, repo_relative

PAGES = all_pages()
SNIPPETS = all_snippets()
ASSERTING_CALLS = {"raises", "warns", "assert_close", "gradcheck", "gradgradcheck", "opcheck", "check_output"}
BANNED_IN_SHOWN_CODE = {"# noqa": "a lint escape", "# type: ignore": "a type escape", "breakpoint()": "a debugger stop"}
PANELS = ("What a strong answer covers", "Where people lose the point")


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def page_uri(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


@cache
def shown_sections() -> dict[str, set[str]]:
    """snippet path -> the sections some page shows: in a fence, or as a drill's `code` or `fix`."""
    shown: dict[str, set[str]] = {}
    for page in PAGES:
        for fence in find_fences(read(page)):
            for _, line in fence.body:
                include = parse_include(line)
                if include and include.section:
                    shown.setdefault(include.path, set()).add(include.section)
        for drill in walk(find_drills(read(page))[0]):
            for _, _, target in snippet_targets(drill):
                include = parse_target(target)
                if include and include.section:
                    shown.setdefault(include.path, set()).add(include.section)
    return shown


@pytest.mark.parametrize("page", PAGES, ids=repo_relative)
def test_page_code_comes_only_from_its_snippet_folder(page: Path) -> None:
    def read_snippet(path: str) -> str | None:
        file = ROOT / path
        return read(file) if file.is_file() else None

    problems = find_problems(read(page), page_uri(page), read_snippet)
    assert not problems, "\n".join(f"{repo_relative(page)}:{p.line}: {p.message}" for p in problems)


@pytest.mark.parametrize("page", PAGES, ids=repo_relative)
def test_every_question_has_both_collapsed_panels(page: Path) -> None:
    text = read(page)
    headings = [m for m in re.finditer(r"^## ([QC]\d+\b.*)$", text, re.MULTILINE)]
    missing = []
    for index, heading in enumerate(headings):
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        body = text[heading.end() : end]
        line = text.count("\n", 0, heading.start()) + 1
        for title in PANELS:
            if not re.search(rf'^\?\?\? \w+ "{title}"$', body, re.MULTILINE):
                missing.append(f'{repo_relative(page)}:{line}: {heading.group(1)[:40]}… lacks ??? … "{title}"')
    assert not missing, "\n".join(missing) + "\n(panels are collapsed: `???`, not `???+`)"


@pytest.mark.parametrize("path", SNIPPETS, ids=repo_relative)
def test_section_markers_are_balanced_and_unique(path: Path) -> None:
    _, problems = read_sections(read(path))
    assert not problems, "\n".join(f"{repo_relative(path)}:{p.line}: {p.message}" for p in problems)


@pytest.mark.parametrize("path", SNIPPETS, ids=repo_relative)
def test_every_snippet_and_section_is_shown_on_a_page(path: Path) -> None:
    sections, _ = read_sections(read(path))
    shown = shown_sections().get(repo_relative(path), set())
    assert sections, f"{repo_relative(path)}:1: no `# --8<-- [start:NAME]` section: nothing of it can be shown"
    orphans = [
        f"{repo_relative(path)}:{s.first_line - 1}: section '{s.name}'"
        for s in sections.values()
        if s.name not in shown
    ]
    assert not orphans, (
        "\n".join(orphans) + f"\nis not included by any page: include it from docs/{_page_for(path)} or delete it"
    )


@pytest.mark.parametrize("path", SNIPPETS, ids=repo_relative)
def test_snippet_checks_its_claims_outside_the_shown_code(path: Path) -> None:
    text = read(path)
    sections, _ = read_sections(text)
    shown = {n for s in sections.values() for n in range(s.first_line, s.last_line + 1)}
    checks = [node for node in ast.walk(ast.parse(text)) if _asserts(node) and node.lineno not in shown]
    assert checks, (
        f"{repo_relative(path)}: asserts nothing. Add hidden checks after the sections (assert, pytest.raises, "
        "pytest.warns, torch.testing.assert_close, gradcheck) that prove what the page claims."
    )


@pytest.mark.parametrize("path", SNIPPETS, ids=repo_relative)
def test_shown_code_is_clean_and_the_file_says_what_it_proves(path: Path) -> None:
    text = read(path)
    assert ast.get_docstring(ast.parse(text)), f"{repo_relative(path)}:1: start with a one-line docstring"
    assert re.fullmatch(r"[a-z][a-z0-9_]*\.py", path.name), f"{repo_relative(path)}: snippet names are snake_case"
    sections, _ = read_sections(text)
    lines = text.split("\n")
    found = [
        f"{repo_relative(path)}:{n}: {why} (`{token}`) in shown code"
        for s in sections.values()
        for n in range(s.first_line, s.last_line + 1)
        for token, why in BANNED_IN_SHOWN_CODE.items()
        if token in lines[n - 1]
    ]
    assert not found, "\n".join(found)


SHOWN_WIDTH = 80  # columns: a shown line, its `# >` output included, fits the code block without scrolling


def too_wide(text: str, sections: set[str], width: int = SHOWN_WIDTH) -> list[tuple[int, int]]:
    """(file line, columns) of each line wider than `width` among the named sections of `text`, measured
    as the page shows them: other markers dropped and the section dedented (mkdocs.yml's
    `dedent_subsections`)."""
    from snippet_markup import _pymdownx

    lines = text.split("\n")
    found = []
    for section in read_sections(text)[0].values():
        if section.name not in sections:
            continue
        numbers = [
            n
            for n in range(section.first_line, section.last_line + 1)
            if _pymdownx().match_section(lines[n - 1]) is None
        ]
        shown = section_lines(text, section.name)
        for number, line in zip(numbers, shown, strict=True):
            if len(line) > width:
                found.append((number, len(line)))
    return found


MARKDOWN_SNIPPETS = sorted((ROOT / "snippets").rglob("*.md"))  # drill syntax shown on docs/conventions.md


@pytest.mark.parametrize("path", SNIPPETS + MARKDOWN_SNIPPETS, ids=repo_relative)
def test_shown_lines_fit_in_80_columns(path: Path) -> None:
    """A line shown on a page (a fence, a drill's `code` or `fix`) fits in 80 columns: wider, the block
    scrolls sideways and hides the `# >` output and the spot-the-bug marks at the end of the line."""
    wide = too_wide(read(path), shown_sections().get(repo_relative(path), set()))
    assert not wide, (
        "\n".join(f"{repo_relative(path)}:{n}: a shown line is {cols} columns, over {SHOWN_WIDTH}" for n, cols in wide)
        + "\nBreak it inside brackets, name a long expression first, or print less: a `# >` line must match "
        "what the code prints, so shorten the print (a rounded value, fewer items) rather than the comment."
    )


def test_the_width_rule_measures_shown_sections_as_the_page_shows_them() -> None:
    text = (
        '"""Doc."""\n'
        "def f():\n"
        "    # --8<-- [start:body]\n"
        f"    x = {'1' * 76}\n"  # 84 columns in the file, 80 once the section is dedented: fits
        "    # --8<-- [start:inner]\n"
        f"    y = {'2' * 77}\n"  # 81 dedented: too wide
        "    # --8<-- [end:inner]\n"
        "    # --8<-- [end:body]\n"
        "# --8<-- [start:hidden]\n"
        f"z = {'3' * 90}\n"  # too wide, but no page shows this section
        "# --8<-- [end:hidden]\n"
    )
    assert too_wide(text, {"body"}) == [(6, 81)]
    assert too_wide(text, {"inner"}) == [(6, 81)]  # alone, dedented by the same 4 columns
    assert too_wide(text, {"hidden"}) == [(10, 94)]


@pytest.mark.parametrize("page", PAGES, ids=repo_relative)
def test_page_names_are_kebab_case(page: Path) -> None:
    for part in page.relative_to(DOCS).with_suffix("").parts:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", part), f"{repo_relative(page)}: page paths are kebab-case"


def _asserts(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return name in ASSERTING_CALLS or name.startswith("assert_")
    return False


def _page_for(snippet: Path) -> str:
    return snippet.parent.relative_to(ROOT / "snippets").as_posix() + ".md"


# ---- the coding round (docs/coding/, "Add a coding problem" in .github/CONTRIBUTING.md) ---------------
CODING_PAGES = [page for page in PAGES if page.parent.name == "coding" and page.stem != "index"]
_C_HEADING = re.compile(r"^## (?P<key>C(?P<number>\d+)) · (?P<title>\S.*)$", re.MULTILINE)
_C_META = re.compile(r"^\*(Easy|Medium|Hard) · \d+ min · builds on .+\*$", re.MULTILINE | re.DOTALL)


def _problem_blocks(page: Path):
    """(heading match, the block's text, its first line) for each `## C<n> · …` on a coding page."""
    text = read(page)
    found = list(_C_HEADING.finditer(text))
    for index, heading in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        yield heading, text[heading.end() : end], text.count("\n", 0, heading.start()) + 1


def _wrong_message(source: str) -> str | None:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["WRONG_MESSAGE"]:
            return node.value.value if isinstance(node.value, ast.Constant) else None
    return None


def _changed_lines(wrong: list[str], solution: list[str]) -> list[int]:
    """The 1-based lines of `wrong` that differ from `solution` (what a spot-the-bug `bug:` must name)."""
    import difflib

    matcher = difflib.SequenceMatcher(a=wrong, b=solution, autojunk=False)
    return [n + 1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal" for n in range(i1, i2)]


@pytest.mark.parametrize("page", CODING_PAGES, ids=repo_relative)
def test_every_coding_problem_has_its_prompt_drill_message_and_panels(page: Path) -> None:
    """Each `## C<n> · <title>` block: the `*Level · N min · builds on …*` line; a fence including the
    problem file's `prompt`; a spot-the-bug on its `wrong` section whose `fix` is its `solution`, whose
    `bug` lines are exactly the lines that differ, and whose body quotes the file's WRONG_MESSAGE; the
    file's docstring is `C<n> · <title>.` (the panels: test_every_question_has_both_collapsed_panels)."""
    folder = f"snippets/coding/{page.stem}/"
    problems = []
    for heading, body, line in _problem_blocks(page):
        where = f"{repo_relative(page)}:{line}: {heading['key']}"
        if not _C_META.search(body.split("\n\n", 2)[1] if body.count("\n\n") > 1 else ""):
            problems.append(f"{where}: the line under the heading is `*Medium · 20 min · builds on [Q…](…)*`")
        includes = re.findall(rf'--8<-- "({re.escape(folder)}[a-z0-9_]+\.py):prompt"', body)
        drills = [d for d in find_drills(body)[0] if d.kind == "spot-the-bug"]
        if len(includes) != 1 or len(drills) != 1:
            problems.append(f"{where}: needs one fence including `{folder}<file>.py:prompt` and one spot-the-bug")
            continue
        path, drill = includes[0], drills[0]
        source = read(ROOT / path)
        doc = (ast.get_docstring(ast.parse(source)) or "").split("\n")[0]
        title = f"{heading['key']} · {heading['title']}"
        if doc.rstrip(".").replace("`", "") != title.rstrip(".").replace("`", ""):
            problems.append(f"{where}: {path}'s docstring is {doc!r}; it must be the heading, `{heading['key']} · …`")
        if (drill.options.get("code"), drill.options.get("fix")) != (f"{path}:wrong", f"{path}:solution"):
            problems.append(f"{where}: the spot-the-bug shows `code: {path}:wrong` and `fix: {path}:solution`")
            continue
        bug = drill.options.get("bug")
        declared = sorted(bug if isinstance(bug, list) else [bug])
        changed = _changed_lines(section_lines(source, "wrong"), section_lines(source, "solution"))
        if declared != changed:
            problems.append(f"{where}: `bug: {bug}`, but the lines of `wrong` that differ from `solution`: {changed}")
        message = _wrong_message(source)
        if not message:
            problems.append(f"{where}: {path} sets WRONG_MESSAGE to the grader's message for `wrong` (a string)")
        elif " ".join(message.split()) not in " ".join(drill.text().split()):  # a quote may wrap lines
            problems.append(f"{where}: the spot-the-bug's text does not quote WRONG_MESSAGE: {message!r}")
    assert not problems, "\n".join(problems)


def test_the_coding_contract_reads_drills_and_diffs_as_the_pages_use_them() -> None:
    assert _changed_lines(["a", "b", "c"], ["a", "B", "c"]) == [2]
    assert _changed_lines(["a", "x", "y", "c"], ["a", "c"]) == [2, 3]
    assert _wrong_message('"""C1 · x."""\nWRONG_MESSAGE = "NaN for 1e4"\n') == "NaN for 1e4"
    assert _wrong_message('"""C1 · x."""\n') is None


# ---- drills (docs/conventions.md#drills) -------------------------------------------------------------
def _drills(kind: str) -> list:
    return [
        pytest.param(page, drill, id=f"{repo_relative(page)}:{drill.line}")
        for page in PAGES
        for drill in walk(find_drills(read(page))[0])
        if drill.kind == kind
    ]


@pytest.mark.parametrize(("page", "drill"), [p for p in _drills("step-through") if p.values[1].options.get("root")])
def test_a_step_through_shows_the_real_autograd_graph_in_the_order_backward_runs_it(page: Path, drill: Drill) -> None:
    """Run the step-through's `code`, hook every node of `root.grad_fn`'s graph, call backward(): the page's
    `graph` must be that graph, and its steps' `nodes`, in order, the order the engine ran the nodes in."""
    include = parse_target(drill.options["code"])
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(
            compile("\n".join(section_lines(read(ROOT / include.path), include.section)), include.path, "exec"),
            namespace,
        )
    real, ran = _traced_backward(namespace[drill.options["root"]], namespace)
    where = f"{repo_relative(page)}:{drill.line_of('graph')}"
    declared = {node: list(drill.options["graph"].get(node) or []) for node in graph_nodes(drill.options["graph"])}
    assert declared == real, f"{where}: `graph` is not the graph of `{drill.options['root']}`; it is:\n{_as_yaml(real)}"
    shown = [node for step in drill.children for node in step.options.get("nodes") or []]
    assert shown == ran, (
        f"{repo_relative(page)}:{drill.line}: the steps' `nodes` run {shown}, but backward() ran {ran}: "
        "give each step the nodes that run in it, in this order"
    )


def _traced_backward(root, namespace: dict) -> tuple[dict[str, list[str]], list[str]]:
    """(node -> the nodes it passes gradients to, the nodes in the order backward() ran them)."""
    import torch

    names = {id(value): name for name, value in namespace.items() if isinstance(value, torch.Tensor)}

    def label(node) -> str:
        variable = getattr(node, "variable", None)
        return type(node).__name__ + (f"({names.get(id(variable), '?')})" if variable is not None else "")

    nodes, todo = [], [root.grad_fn]
    while todo:
        node = todo.pop(0)
        if node is not None and node not in nodes:
            nodes.append(node)
            todo += [child for child, _ in node.next_functions]
    labels = [label(node) for node in nodes]
    assert len(set(labels)) == len(labels), (
        f"two graph nodes share a name ({labels}): a step-through needs unique names"
    )
    graph = {label(node): [label(child) for child, _ in node.next_functions if child is not None] for node in nodes}
    ran: list[str] = []

    def record(name: str):
        return lambda grad_outputs: ran.append(name)

    for node in nodes:
        node.register_prehook(record(label(node)))
    root.backward(torch.ones_like(root))
    return graph, ran


def _as_yaml(graph: dict[str, list[str]]) -> str:
    return "graph:\n" + "\n".join(f"  {node}: [{', '.join(targets)}]" for node, targets in graph.items() if targets)


@pytest.mark.parametrize("page", PAGES, ids=repo_relative)
def test_drill_syntax_shown_in_a_page_is_the_drill_it_shows_live(page: Path) -> None:
    """A fence that includes a drill's Markdown (snippets/conventions/drill_syntax.md) must show exactly the
    source of a live drill on the same page, so the syntax on the page is the syntax that renders there."""
    text = read(page)
    sources = ["\n".join(text.split("\n")[d.line - 1 : d.end_line]) for d in find_drills(text)[0] if d.end_line]
    for fence in find_fences(text):
        for number, line in fence.body:
            include = parse_include(line)
            if include is None or include.path.endswith(".py") or not (ROOT / include.path).is_file():
                continue
            shown = "\n".join(section_lines(read(ROOT / include.path), include.section)).replace(";--8<--", "--8<--")
            if shown.startswith("///"):
                assert shown in sources, f"{repo_relative(page)}:{number}: this example is not a drill on the page"


@pytest.mark.parametrize("page", PAGES, ids=repo_relative)
def test_code_inside_drills_is_run_by_the_page_tests(page: Path) -> None:
    """Fences in flashcards (and any drill) are top-level fences the page tests collect and run."""
    from tests.plugin.pages import ExpandingParser

    text = read(page)
    spans = [(d.line, d.end_line or d.line) for d in walk(find_drills(text)[0])]
    inside = [
        f.opening_line
        for f in find_fences(text)
        if f.info == "python" and any(a < f.opening_line < b for a, b in spans)
    ]
    collected = {token.map[0] + 1 for token in ExpandingParser().parse(text) if token.type == "fence" and token.map}
    assert not [line for line in inside if line not in collected], f"{repo_relative(page)}: drill fences not collected"


# The "Add a question" runbook in .github/CONTRIBUTING.md, step by step, with the test that holds each
# step here: a rule enforced but not written down, or written down but not enforced, fails this file.
RUNBOOK = {
    "one-line docstring": "test_shown_code_is_clean_and_the_file_says_what_it_proves",
    "`# --8<-- [start:demo]`": "test_section_markers_are_balanced_and_unique",
    "complete program with its own imports": "test_page_code_comes_only_from_its_snippet_folder",
    "`# > …` lines": "tests.test_snippets.test_snippet",
    "Shown lines fit in 80 columns": "test_shown_lines_fit_in_80_columns",
    "`def _check() -> None:` proves every": "test_snippet_checks_its_claims_outside_the_shown_code",
    "a fence that holds only the include line": "test_page_code_comes_only_from_its_snippet_folder",
    '`??? success "What a strong answer covers"`': "test_every_question_has_both_collapsed_panels",
    '`??? failure "Where people lose the point"`': "test_every_question_has_both_collapsed_panels",
}


def test_the_contributing_runbook_states_each_rule_this_file_enforces() -> None:
    text = read(ROOT / ".github" / "CONTRIBUTING.md")
    runbook = text[text.index("## Add a question") :]
    runbook = runbook[: runbook.index("\n## ", 1)]
    missing = [phrase for phrase in RUNBOOK if phrase not in " ".join(runbook.split())]
    assert not missing, f".github/CONTRIBUTING.md's 'Add a question' no longer states: {missing}"
    unknown = [rule for rule in RUNBOOK.values() if not _rule_exists(rule)]
    assert not unknown, f"RUNBOOK names rules this file no longer has: {unknown}"


# The "Add a coding problem" recipe, step by step, with the test that holds each step.
CODING_RUNBOOK = {
    "docstring is `C<n> · <title>.`": "test_every_coding_problem_has_its_prompt_drill_message_and_panels",
    "`# --8<-- [start:prompt]`": "test_every_coding_problem_has_its_prompt_drill_message_and_panels",
    "Set `WRONG_MESSAGE`": "test_every_coding_problem_has_its_prompt_drill_message_and_panels",
    "the notebook's check cell holds nothing else": "tests.test_labs.test_committed_notebook_is_the_lab",
    "`grade(_wrong)` raises one matching `re.escape(WRONG_MESSAGE)`": "tests.test_snippets.test_snippet",
    "whose `bug` lines are the lines that differ": "test_every_coding_problem_has_its_prompt_drill_message_and_panels",
    '`??? failure "Where people lose the point"`': "test_every_question_has_both_collapsed_panels",
    "Run `make labs`": "tests.test_labs.test_committed_notebook_is_the_lab",
}


def test_the_contributing_coding_recipe_states_each_rule_this_file_enforces() -> None:
    text = read(ROOT / ".github" / "CONTRIBUTING.md")
    recipe = text[text.index("## Add a coding problem") :]
    recipe = recipe[: recipe.index("\n## ", 1)]
    missing = [phrase for phrase in CODING_RUNBOOK if phrase not in " ".join(recipe.split())]
    assert not missing, f".github/CONTRIBUTING.md's 'Add a coding problem' no longer states: {missing}"
    unknown = [rule for rule in CODING_RUNBOOK.values() if not _rule_exists(rule)]
    assert not unknown, f"CODING_RUNBOOK names rules this file no longer has: {unknown}"


def _rule_exists(rule: str) -> bool:
    module, _, name = rule.rpartition(".")
    return hasattr(importlib.import_module(module), name) if module else rule in globals()
