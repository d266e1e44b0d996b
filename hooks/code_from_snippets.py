"""Hook: fail the build on any code block in docs/ that is not included from the page's snippet folder,
and on any malformed drill (hooks/drill_checks.py: its snippets follow the same folder and section rules).

The pure part, `find_problems`, is unit-tested on strings; `on_page_markdown` only feeds it the page
source (front matter included, so line numbers are the file's own) and turns problems into an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from drill_checks import Snippets, drill_problems
from mkdocs.exceptions import PluginError
from page_fences import find_fences
from snippet_markup import is_block_marker, parse_include, read_sections, section_lines

_BARE_INFO = re.compile(r"^[\w+-]*$")  # "python", "" — anything else must use the brace form


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


def snippet_folder(page: str) -> str:
    """`tensors/anatomy.md` -> `snippets/tensors/anatomy/`: the only folder that page may include from."""
    return str(PurePosixPath("snippets") / PurePosixPath(page).with_suffix("")) + "/"


def find_problems(markdown: str, page: str, read_snippet: Callable[[str], str | None]) -> list[Problem]:
    """Everything that breaks the snippet contract on one page (`page` is relative to docs/)."""
    folder = snippet_folder(page)
    problems: list[Problem] = []
    inside_fences: set[int] = set()
    for fence in find_fences(markdown):
        inside_fences.update(number for number, _ in fence.body)
        if fence.closing_line is None:
            problems.append(Problem(fence.opening_line, "code fence is never closed"))
        if not (fence.info.startswith("{") or _BARE_INFO.match(fence.info)):
            problems.append(
                Problem(
                    fence.opening_line,
                    f"fence options must use the brace form, e.g. ```{{.python continuation}}``` "
                    f"(not ```{fence.info}```, which renders as broken inline code)",
                )
            )
        code_lines = [(number, text) for number, text in fence.body if text.strip() and parse_include(text) is None]
        if code_lines:
            number, text = code_lines[0]
            problems.append(
                Problem(
                    number,
                    f"code written in the page (`{text.strip()}`): move it into {folder}<item>.py between "
                    f"`# --8<-- [start:NAME]` and `# --8<-- [end:NAME]`, and put "
                    f'`--8<-- "{folder}<item>.py:NAME"` in the fence instead',
                )
            )
        for number, text in fence.body:
            include = parse_include(text)
            if include is not None:
                problems += [Problem(number, message) for message in _include_problems(include, folder, read_snippet)]
    for number, text in enumerate(markdown.split("\n"), start=1):
        if number not in inside_fences and (parse_include(text) or is_block_marker(text)):
            problems.append(
                Problem(number, "snippet include outside a code fence: includes belong inside ```python fences")
            )
    snippets = Snippets(
        problems=lambda include: _include_problems(include, folder, read_snippet),
        lines=lambda include: section_lines(read_snippet(include.path) or "", include.section),
    )
    problems += [Problem(problem.line, problem.message) for problem in drill_problems(markdown, snippets)]
    return sorted(problems, key=lambda problem: problem.line)


def _include_problems(include, folder: str, read_snippet) -> list[str]:
    where = f'"{include.path}"'
    if include.uses_line_numbers:
        return [f"{where} includes line numbers: include a named section (`:NAME`) instead"]
    if include.section is None:
        return [f"{where} includes the whole file, hidden checks included: include a named section (`:NAME`)"]
    if not include.path.startswith(folder):
        return [f"{where} is outside this page's snippet folder: pages include only from {folder}"]
    text = read_snippet(include.path)
    if text is None:
        return [f"snippet file {include.path} does not exist: create it or fix the path"]
    sections, marker_problems = read_sections(text)
    if include.section not in sections:
        known = ", ".join(sorted(sections)) or "none"
        opened = [p for p in marker_problems if f"'{include.section}'" in p.message]
        if opened:
            return [f"{include.path}:{p.line}: {p.message}" for p in opened]
        return [
            f"{include.path} has no section '{include.section}' (it has: {known}): add "
            f"`# --8<-- [start:{include.section}]` … `# --8<-- [end:{include.section}]` or fix the name"
        ]
    return []


def on_page_markdown(markdown, page, config, **kwargs):
    root = Path(config.config_file_path).parent
    source = page.file.content_string

    def read_snippet(path: str) -> str | None:
        file = root / path
        return file.read_text(encoding="utf-8") if file.is_file() else None

    problems = find_problems(source, page.file.src_uri, read_snippet)
    if problems:
        docs = Path(config.docs_dir).relative_to(root)
        lines = [f"{docs / page.file.src_uri}:{p.line}: {p.message}" for p in problems]
        raise PluginError("Page breaks the snippet contract (see docs/conventions.md):\n  " + "\n  ".join(lines))
    return markdown
