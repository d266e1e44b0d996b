"""Run the code of every page as a reader sees it (pytest-markdown-docs over the expanded pages).

- Includes are expanded by the site's own pymdownx.snippets preprocessor, configured from
  mkdocs.yml — the same code the build runs, never a second parser.
- Fences inside `???`/`!!!` panels are collected too (the stock parser silently skips them).
- Each fence runs in a fresh namespace, as copied; `{.python continuation}` re-runs the fences before
  it. Its output is compared with its `# >` lines and deprecation warnings fail it. A fence showing a
  `*_dist.py` snippet runs as a script in its own process (it starts processes); one showing a
  `*_cuda.py` snippet runs only on the GPU lane.
- A failure names the page and line of the fence, and the snippet file and line of the failing code.
"""

from __future__ import annotations

import functools
import linecache
import tempfile
import traceback
from pathlib import Path

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from tests.expected_output import check_output
from tests.run_code import exec_in_process, run_in_subprocess
from tests.snippet_files import ROOT, all_snippets, needs_gpu, repo_relative, starts_processes


@functools.cache
def _site_snippet_preprocessor():
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    md = markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"])
    return md.preprocessors["snippet"]


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


class ExpandingParser:
    """Duck-types the MarkdownIt parser pytest-markdown-docs uses (only `.parse` is called)."""

    def __init__(self) -> None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.admon import admon_plugin

        self._md = MarkdownIt("commonmark").use(admon_plugin)

    def parse(self, src: str, env=None):
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
        gpu_only = [path for path in included if needs_gpu(Path(path))]
        if gpu_only and _lane() != "gpu":
            pytest.skip(f"shows {gpu_only[0]}, which needs a CUDA GPU: runs on the GPU lane (make test-gpu)")
        where = f"{repo_relative(Path(test.source_path))}:{test.start_line}"
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
        return run_in_subprocess(script)


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
