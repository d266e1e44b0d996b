"""Run the code of every page as a reader sees it (pytest-markdown-docs over the expanded pages).

- Includes are expanded by the site's own pymdownx.snippets preprocessor, configured from
  mkdocs.yml — the same code the build runs, never a second parser (read without MkDocs, so the
  GPU lane needs no MkDocs: tests/snippet_files.py `snippet_preprocessor`).
- Fences inside `???`/`!!!` panels are collected too (the stock parser silently skips them).
- Each fence runs in a fresh namespace, as copied; `{.python continuation}` re-runs the fences before
  it. Its output is compared with its `# >` lines and deprecation warnings fail it. A fence showing a
  `*_dist.py` snippet runs as a script in its own process (it starts processes); one showing a
  `*_cuda.py` snippet runs only on the GPU lane.
- A failure names the page and line of the fence, and the snippet file and line of the failing code.
- No expensive work twice: a fence whose program is, statement for statement, what a snippet file runs
  before its hidden checks (the file is a docstring, that program, any private helpers of `_check`,
  `_check` and its `__main__` call), with
  the same `# >` lines and nothing that tells the two runs apart (`__file__`, frames, sibling modules…),
  is proven by that snippet's passing run in this session (tests/test_snippets.py) instead of running a
  second time; the report names the run it reused. Any other fence, or a fence whose snippet did not pass
  (or has not run yet, e.g. `pytest docs/`), runs itself. Under pytest-xdist the snippet test and such a
  fence run in one worker, the snippet first (tests/plugin/worker_groups.py).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import linecache
import tempfile
import traceback
from pathlib import Path

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from tests.expected_output import check_output, expected_output
from tests.run_code import exec_in_process, run_in_subprocess
from tests.snippet_files import ROOT, all_snippets, repo_relative, skip_reason, snippet_preprocessor, starts_processes


def _site_snippet_preprocessor():
    return snippet_preprocessor()  # configured from mkdocs.yml without MkDocs: the GPU lane has no MkDocs


def expand_includes(markdown: str) -> tuple[list[str], list[int]]:
    """The page as rendered code sees it, and for each output line the 0-based page line it came from."""
    from snippet_markup import parse_include

    lines, origin = [], []
    for number, line in enumerate(markdown.split("\n")):
        if parse_include(line) is not None:
            try:
                expanded = _site_snippet_preprocessor().run([line])
            except Exception as error:
                raise ValueError(f"line {number + 1}: {error}") from error
        else:
            expanded = [line]
        lines += expanded
        origin += [number] * len(expanded)
    return lines, origin


_parsed: dict[str, list] = {}  # page text -> its tokens (`ExpandingParser.parse`)


class ExpandingParser:
    """Duck-types the MarkdownIt parser pytest-markdown-docs uses (only `.parse` is called)."""

    def __init__(self) -> None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.admon import admon_plugin

        self._md = MarkdownIt("commonmark").use(admon_plugin)

    def parse(self, src: str, env=None):
        """The page's tokens, fence lines mapped back to the page. The same page's tokens are shared by
        its readers (pytest-markdown-docs collecting the fences, tests/test_run_modes.py the blocks),
        which only read them: each page is expanded and parsed once per session."""
        if env is not None:
            return self._parse(src, env)
        if src not in _parsed:
            _parsed[src] = self._parse(src, None)
        return _parsed[src]

    def _parse(self, src: str, env):
        lines, origin = expand_includes(src)
        for number, line in enumerate(src.split("\n"), start=1):
            if line.lstrip().startswith('=== "'):
                raise ValueError(f"line {number}: content tabs hide their fences from the page tests; use panels")
        tokens = self._md.parse("\n".join(lines), env)
        for token in tokens:
            if token.type == "code_block" and "```" in token.content:
                raise ValueError(
                    "a fence sits in markup the page tests cannot parse; keep fences in panels or at top level"
                )
            if token.map:
                first, last = token.map
                token.map = [origin[first], origin[max(first, last - 1)] + 1]
        return tokens


@pytest.hookimpl(tryfirst=True)
def pytest_markdown_docs_markdown_it():
    return ExpandingParser()


@register_runner(default=True)
class PageFenceRunner(DefaultRunner):
    """Compiles under a name like `docs/x.md::fence@12` so tracebacks quote the real code line."""

    def runtest(self, test, args, **kwargs) -> None:
        included = _included_files(Path(test.source_path), test.start_line)
        for path in included:  # a *_cuda.py file on the CPU lane, too few GPUs, a torch outside the claim's range
            if reason := skip_reason(ROOT / path, _lane()):
                pytest.skip(f"shows {path}: {reason}")
        where = f"{repo_relative(Path(test.source_path))}:{test.start_line}"
        proven_by = reused_snippet_run(test.source, included)
        if proven_by is not None:
            if _running:
                _running[-1].user_properties.append(("reuses", proven_by))
            return
        if any(starts_processes(Path(path)) for path in included):
            printed = _run_as_script(test.source)  # it starts processes: run it as the reader would, as a script
        else:
            filename = f"{where}::fence"
            linecache.cache[filename] = (len(test.source), None, test.source.splitlines(True), filename)
            printed = exec_in_process(compile(test.source, filename, "exec", dont_inherit=True), args)
        check_output(test.source, printed, where=f"fence at {where}")

    def repr_failure(self, test, excinfo, style=None) -> str:
        page = f"{repo_relative(Path(test.source_path))}:{test.start_line}"
        frames = [f for f in traceback.extract_tb(excinfo.tb) if f.filename.endswith("::fence")]
        lines = [f"{excinfo.exconly()}", f"  fence: {page} (the code block that starts there)"]
        if frames and frames[-1].line:
            failing = frames[-1].line.strip()
            lines.append(f"  failing line: {failing}")
            lines += [f"  snippet: {where}" for where in _snippet_lines_matching(failing)]
        lines.append("".join(traceback.format_exception(excinfo.value)[-8:]))
        return "\n".join(lines)


def _run_as_script(source: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "fence.py"
        script.write_text(source, encoding="utf-8")
        return run_in_subprocess(script, traced=False)  # a fence's lines are not gated: no tracing


def _included_files(page: Path, opening_line: int) -> list[str]:
    """The snippet files included by the fence that opens on this line of the page."""
    from page_fences import find_fences
    from snippet_markup import parse_include

    fences = [f for f in find_fences(page.read_text(encoding="utf-8")) if f.opening_line <= opening_line]
    return [include.path for fence in fences[-1:] for _, text in fence.body if (include := parse_include(text))]


def _lane() -> str:
    return _config.getoption("lane") if _config is not None else "cpu"


_config: pytest.Config | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _config
    _config = config


def _snippet_lines_matching(code_line: str) -> list[str]:
    return [
        f"{repo_relative(path)}:{number}"
        for path in all_snippets()
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
        if line.strip() == code_line
    ][:3]


# ---- a fence that shows exactly what a snippet test already ran -----------------------------------------
SNIPPET_TEST = "tests/test_snippets.py::test_snippet"
# What would tell a fence's run from the snippet file's run: where the code lives, the module's own names,
# frames and source lookups. Code that mentions any of them always runs as its own fence.
TELLS_APART = {
    "__file__", "__doc__", "__spec__", "__loader__", "__cached__", "__builtins__", "__package__",
    "globals", "vars", "locals", "dir", "argv", "traceback", "inspect", "currentframe", "_getframe",
    "getsource", "co_filename", "f_code", "f_globals", "stack",
}  # fmt: skip
_proven: dict[str, str] = {}  # snippet file -> sha256 of the text that passed its test in this session
_running: list[pytest.Item] = []  # the item being run, for the runner to record what it reused


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _is_check_tail(statements: list[ast.stmt]) -> bool:
    """`def _check(): ...` then `if __name__ == "__main__": _check()`, printing nothing itself."""
    if len(statements) != 2:
        return False
    check, guard = statements
    if not (isinstance(check, ast.FunctionDef) and check.name == "_check"):
        return False
    if ast.unparse(guard) != "if __name__ == '__main__':\n    _check()":
        return False
    return not any(isinstance(node, ast.Name) and node.id == "print" for node in ast.walk(check))


def _is_check_helper(statement: ast.stmt) -> bool:
    """A hidden function `_check` calls (a rank's extra run must be a module-level function to be sent
    to its process): private, undecorated, no defaults, printing nothing. Defining it runs no code
    that could change what the program before it did or printed."""
    if not isinstance(statement, ast.FunctionDef) or not statement.name.startswith("_"):
        return False
    arguments = statement.args
    if statement.decorator_list or arguments.defaults or any(arguments.kw_defaults):
        return False
    return not any(isinstance(node, ast.Name) and node.id == "print" for node in ast.walk(statement))


@functools.cache
def shown_program(snippet: str) -> str | None:
    """The AST of what a snippet file's text runs before its checks, when the file is only a docstring,
    that program and the standard check tail; else None."""
    try:
        body = ast.parse(snippet).body
    except SyntaxError:
        return None
    if body and _is_docstring(body[0]):
        body = body[1:]
    if len(body) < 3 or not _is_check_tail(body[-2:]):
        return None
    program = body[:-2]
    while program and _is_check_helper(program[-1]):  # defined after the program ran: they change nothing
        program.pop()
    return ast.dump(ast.Module(program, [])) if program else None


def _read(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def reusable_snippet(source: str, included: list[str], read=_read) -> str | None:
    """The snippet file whose run proves this fence's code, judged from the text alone (see the module
    docstring); None when the fence must run itself."""
    if len(set(included)) != 1:
        return None
    path = included[0]
    try:
        snippet = read(path)
        fence = ast.parse(source)
    except (OSError, SyntaxError):
        return None
    program = shown_program(snippet)
    if program is None or ast.dump(ast.Module(fence.body, [])) != program:
        return None
    if expected_output(source) != expected_output(snippet):
        return None
    script = starts_processes(Path(path))  # a fence run as a script is `__main__` too; an in-process one is not
    names = {n.id for n in ast.walk(fence) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(fence) if isinstance(n, ast.Attribute)}
    if names & TELLS_APART or ("__name__" in names and not script):
        return None
    if script and _imports_a_neighbour(fence, (ROOT / path).parent):
        return None
    return path


def _imports_a_neighbour(tree: ast.Module, folder: Path) -> bool:
    """A script finds modules next to itself: the snippet's folder is not the fence's."""
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.append(node.module)
    tops = {module.split(".")[0] for module in modules}
    return any((folder / f"{top}.py").exists() or (folder / top).is_dir() for top in tops)


def reused_snippet_run(source: str, included: list[str]) -> str | None:
    """The node id of the passing snippet test that proves this fence, if it ran in this session on the
    same text; else None."""
    path = reusable_snippet(source, included)
    if path is None or _proven.get(path) != _digest(path):
        return None
    return f"{SNIPPET_TEST}[{path}]"


def _digest(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def _snippet_param(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    path = callspec.params.get("path") if callspec is not None else None
    return repo_relative(path) if isinstance(path, Path) else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    _running.append(item)
    try:
        yield
    finally:
        _running.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.passed and item.nodeid.startswith(SNIPPET_TEST + "["):
        if (path := _snippet_param(item)) is not None:
            _proven[path] = _digest(path)


def pytest_terminal_summary(terminalreporter) -> None:
    reused = [r for r in terminalreporter.stats.get("passed", []) if any(k == "reuses" for k, _ in r.user_properties)]
    if reused:
        terminalreporter.write_line(
            f"page fences: {len(reused)} proven by the passing run of the snippet they show (same program), not re-run"
        )
