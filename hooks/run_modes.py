"""How a reader runs a code block as shown: pasted at the `python` prompt, or saved as a file and run.

"Copy any block and it runs" is true only one way or the other. The classic `python` prompt (Python up
to 3.12, and 3.13+ with PYTHON_BASIC_REPL) reads a paste line by line: a blank line ends an indented
block, and a statement that follows an indented block needs a blank line before it. So code with a
blank line inside a function body fails there while it runs fine from a file; and a `*_dist.py` example
starts worker processes that import the main module, which must be a file. hooks/code_captions.py says
under each block which way it runs, decided here from the code as the page shows it;
tests/test_run_modes.py runs every block of every page that way.
"""

from __future__ import annotations

import codeop

PASTE = "paste"  # paste it at the `python` prompt
FILE = "file"  # save it as a .py file and run `python file.py`
OWN_PROCESS = "# runs in its own process: "  # a snippet line that declares it, with the reason after it
CAPTIONS = {
    PASTE: "Runs pasted at the `python` prompt",
    FILE: "Runs saved as a `.py` file: `python file.py`",
}


def pastes_cleanly(code: str) -> bool:
    """True when `code`, pasted into the classic prompt line by line, compiles statement by statement as
    it does in a file: what `code.InteractiveConsole.push` (the prompt's own logic) would accept."""
    compiler = codeop.CommandCompiler()
    buffer: list[str] = []
    for line in [*code.split("\n"), ""]:
        buffer.append(line)
        try:
            compiled = compiler("\n".join(buffer), "<paste>", "single")
        except (SyntaxError, OverflowError, ValueError):
            return False
        if compiled is not None:  # the prompt runs what it has and starts a new statement
            buffer = []
    return not any(part.strip() for part in buffer)  # else it is left waiting for more input


def run_mode(code: str, starts_processes: bool) -> str:
    """PASTE or FILE for the code a block shows (`starts_processes`: it includes a `*_dist.py` snippet)."""
    if starts_processes or not pastes_cleanly(code):
        return FILE
    return PASTE


def declares_own_process(snippet_text: str) -> bool:
    """True when a snippet has a line `# runs in its own process: <why>` at the left margin: it sets up
    process-wide state that must come first (TRITON_INTERPRET before `import triton`), so the tests run it
    as a script in a fresh process and the page says to save it as a file."""
    return any(line.startswith(OWN_PROCESS) and line[len(OWN_PROCESS) :].strip() for line in snippet_text.split("\n"))
