"""The coding round's practice notebooks: one per page, generated from the page's problem files.

A problem file (`snippets/coding/<page>/<name>.py`, docstring `C13 · <title>.`) holds the prompt, wrong
and solution sections and a `grade(<entries>)` function whose parameters are the prompt's entry names.
`practice_text` turns a page's problem files into the lab format (hooks/lab_format.py): a title, the
grading kit as a setup cell, then per problem a heading, the prompt as the `exercise` cell, `grade`'s
source plus `print(grade(...))` as the `check` cell and the solution as the `solution` cell. Pure apart
from reading the files it is given; every mistake names the file and line.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from lab_format import LabError
from snippet_markup import read_sections, section_lines

KIT = Path("snippets") / "coding" / "index" / "grading_kit.py"
NOTEBOOK = "practice.ipynb"  # next to the problem files, and next to the page on the site
_KEY = re.compile(r"^C(?P<number>\d+) · (?P<title>\S.*?)\.?$")


def problem_key(text: str, path: str) -> tuple[int, str] | None:
    """(13, "Scaled dot-product attention …") from a docstring `C13 · …`; None for a file that is no problem."""
    doc = ast.get_docstring(ast.parse(text, path)) or ""
    found = _KEY.match(doc.split("\n")[0])
    return (int(found["number"]), found["title"]) if found else None


def problem_files(folder: Path) -> list[Path]:
    """A page's problem files, by problem number."""
    keyed = [(problem_key(p.read_text(encoding="utf-8"), str(p)), p) for p in sorted(folder.glob("*.py"))]
    return [path for key, path in sorted((k, p) for k, p in keyed if k)]


def practice_folders(root: Path) -> list[Path]:
    """snippets/coding/<page>/ for every page that has problem files."""
    base = root / "snippets" / "coding"
    return [folder for folder in sorted(base.glob("*/")) if folder.is_dir() and problem_files(folder)]


def top_level_names(text: str) -> set[str]:
    """What a module defines at its top level (the kit's public names, for the check cells)."""
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def grader(text: str, path: str, known: set[str] = frozenset()) -> tuple[str, list[str]]:
    """`grade`'s source and its parameter names (the prompt's entries, in order). The check cell holds
    only that source, after the kit cell: a name grade uses must be defined inside it, or be one of
    `known` (the kit's) or a builtin."""
    tree = ast.parse(text, path)
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "grade"]
    if not found:
        raise LabError(f"{path}:1: a problem file defines `def grade(<entry names>):` at the top level")
    names = [arg.arg for arg in found[0].args.args]
    if not names:
        raise LabError(f"{path}:{found[0].lineno}: grade takes the prompt's entries, named as in the prompt")
    nodes = list(ast.walk(found[0]))
    defined = set(known) | set(dir(builtins)) | {a.arg for n in nodes if isinstance(n, ast.arguments)
                                                  for a in n.posonlyargs + n.args + n.kwonlyargs}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arguments):
            defined.update(a.arg for a in (node.vararg, node.kwarg) if a)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in defined:
            raise LabError(
                f"{path}:{node.lineno}: grade uses `{node.id}`, which the notebook's check cell does not have "
                "(it holds only grade and the kit): define it inside grade"
            )
    return ast.get_source_segment(text, found[0]), names


def _section(text: str, name: str, path: str) -> str:
    sections, _ = read_sections(text)
    if name not in sections:
        raise LabError(f"{path}:1: a problem file has the sections prompt, wrong and solution; `{name}` is missing")
    return "\n".join(section_lines(text, name))


def _markdown(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.split("\n"))


def practice_text(folder: Path, root: Path) -> str:
    """The page's notebook in the lab format (jupytext percent text)."""
    page = folder.name.replace("-", " ").capitalize()
    kit_text = (root / KIT).read_text(encoding="utf-8")
    kit, known = _section(kit_text, "kit", KIT.as_posix()), top_level_names(kit_text)
    cells = [
        "# %% [markdown]\n"
        + _markdown(
            f"# Coding round · {page}\n\nEach problem: write the function in its *exercise* cell, then run the "
            "*check* cell under it, which grades it and fails until it is right. The solutions are collapsed; "
            "open one only after you have tried. Run the next cell first: it defines the grading kit.\n\n"
            "Runs on the CPU (a GPU is used when there is one). Any install with torch >= 2.6 has everything."
        ),
        f"# %%\n{kit}",
    ]
    for path in problem_files(folder):
        text, where = path.read_text(encoding="utf-8"), path.relative_to(root).as_posix()
        number, title = problem_key(text, where)
        source, names = grader(text, where, known)
        cells += [
            f"# %% [markdown]\n# ## C{number} · {title}",
            f'# %% tags=["exercise"]\n{_section(text, "prompt", where)}',
            f'# %% tags=["check"]\n{source}\n\n\nprint(grade({", ".join(names)}))',
            f'# %% tags=["solution"]\n{_section(text, "solution", where)}',
        ]
    return "\n\n".join(cells) + "\n"
