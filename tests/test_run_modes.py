"""Every code block on every page runs the way its caption says (hooks/run_modes.py).

The page tests (tests/plugin/pages.py) run each block as a whole module. A reader who copies a block
pastes it at the `python` prompt, which reads line by line, or saves it as a file. So here:

- a block captioned "Runs pasted at the `python` prompt" is pushed line by line through
  `code.InteractiveConsole` (the classic prompt's own logic), then a blank line, as a paste is; every
  statement must run, and its `# >` lines must appear, in order, in what it printed (the prompt also
  echoes the value of a bare expression, such as `model.eval()`);
- a block captioned "Runs saved as a `.py` file" is exactly what the page tests run: the whole block as
  one module (in its own process when it starts processes), printing exactly its `# >` lines. It is not
  run a second time here (a compile or a process launch each time, the suite's most expensive blocks);
  this test proves only that its caption was decided on the code the block shows.

The caption is decided by the same function the build calls, on the code pymdownx expands here, and the
test checks that this is the code the hook decided on.
"""

from __future__ import annotations

import code
import contextlib
import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from code_captions import block_run_mode, shown_code
from page_fences import find_fences
from run_modes import FILE, PASTE
from snippet_markup import parse_include

from tests.expected_output import expected_output
from tests.plugin.pages import ExpandingParser, _lane
from tests.run_code import current_apis_only
from tests.snippet_files import ROOT, all_pages, needs_gpu, repo_relative


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # the fence's opening line on the page
    code: str  # what the reader copies: the expanded fence
    before: str  # for a `continuation` fence, the fences it continues (pasted or saved first)
    includes: tuple  # the snippet includes of the fence
    before_includes: tuple  # those of the fences it continues


@cache
def page_blocks(page: Path) -> tuple[Block, ...]:
    text = page.read_text(encoding="utf-8")
    fences = {fence.opening_line: fence for fence in find_fences(text)}
    blocks, previous, chain = [], "", ()
    for token in ExpandingParser().parse(text):
        if token.type != "fence" or not token.map:
            continue
        info = token.info.strip("{} ").split()
        if not info or info[0].lstrip(".") not in ("py", "python", "python3") or "notest" in info:
            continue
        line = token.map[0] + 1
        before = previous if "continuation" in info else ""
        fence = fences[line]
        includes = tuple(include for _, body in fence.body if (include := parse_include(body)))
        before_includes = chain if before else ()
        blocks.append(Block(page, line, token.content.rstrip("\n"), before, includes, before_includes))
        previous = (before + "\n" if before else "") + token.content.rstrip("\n")
        chain = before_includes + includes
    return tuple(blocks)


BLOCKS = [
    pytest.param(block, id=f"{repo_relative(block.page)}:{block.line}")
    for page in all_pages()
    for block in page_blocks(page)
]


def _text_of(include) -> str:
    return (ROOT / include.path).read_text(encoding="utf-8")


class Paste(code.InteractiveConsole):
    """The classic prompt, fed a paste: records every error instead of printing it and going on."""

    def __init__(self) -> None:
        super().__init__(locals={"__name__": "__main__", "__builtins__": __builtins__}, filename="<paste>")
        self.errors: list[str] = []

    def showsyntaxerror(self, filename=None, **kwargs) -> None:
        self.errors.append(self._error())

    def showtraceback(self) -> None:
        self.errors.append(self._error())

    @staticmethod
    def _error() -> str:
        import sys
        import traceback

        return "".join(traceback.format_exception(sys.exc_info()[1]))


def paste(source: str) -> tuple[str, list[str]]:
    """Push `source` line by line, then a blank line; what it printed and the errors it raised."""
    console = Paste()
    printed = io.StringIO()
    with current_apis_only(), contextlib.redirect_stdout(printed):
        for line in [*source.split("\n"), ""]:
            console.push(line)
            if console.errors:
                break
    return printed.getvalue(), console.errors


def in_order(expected: list[str], printed: str) -> bool:
    """`expected` lines appear in `printed`, in this order (other lines may come between)."""
    lines = iter(line.rstrip() for line in printed.split("\n"))
    return all(any(line == want.rstrip() for line in lines) for want in expected)


@pytest.mark.parametrize("block", BLOCKS)
def test_a_block_runs_the_way_its_caption_says(block: Block, tmp_path: Path, monkeypatch) -> None:
    where = f"{repo_relative(block.page)}:{block.line}"
    if any(needs_gpu(Path(include.path)) for include in block.includes) and _lane() != "gpu":
        pytest.skip("shows a *_cuda.py snippet: runs on the GPU lane")
    assert shown_code(list(block.includes), _text_of) == block.code, (
        f"{where}: the caption was decided on other code than the block shows (hooks/code_captions.py)"
    )
    mode = block_run_mode([*block.before_includes, *block.includes], _text_of)  # as the hook decides
    monkeypatch.chdir(tmp_path)
    if mode == PASTE:
        printed, errors = paste((block.before + "\n" if block.before else "") + block.code)
        assert not errors, f"{where}: captioned 'paste at the python prompt', but a paste fails:\n{errors[0]}"
        expected = expected_output(block.code)
        assert in_order(expected, printed), f"{where}: pasted, it did not print its `# >` lines in order:\n{printed}"
        return
    assert mode == FILE, f"{where}: unknown run mode {mode!r}"
