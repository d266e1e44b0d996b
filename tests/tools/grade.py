"""`make grade C=13 FILE=mine.py`: grade your solution to a coding-round problem, on every device here.

Prints what passed, or what failed and why, in the grader's words; never a traceback from the grader.
Exit 0: it passes. Exit 1: your code fails (a check, a syntax error, a missing entry, a wrong signature,
an error while loading, or no answer within the time limit). Exit 2: nothing to grade (no such problem
or file).
"""

from __future__ import annotations

import argparse
import inspect
import runpy
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hooks"))
from coding_labs import problem_key  # noqa: E402  (hooks/ is not a package)

LIMIT_S = 120  # loading your file and grading it: the first fake-GPU check alone imports torch._dynamo


class TooSlow(BaseException):
    """Raised by the alarm; a BaseException, so neither your code's nor the kit's `except Exception` eats it."""


def find_problem(number: int) -> Path | None:
    for path in sorted((ROOT / "snippets" / "coding").glob("*/*.py")):
        key = problem_key(path.read_text(encoding="utf-8"), str(path))
        if key and key[0] == number:
            return path
    return None


def _limit(seconds: int):
    def stop(signum, frame):
        raise TooSlow

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)


def _parameters(fn) -> list[str]:
    return list(inspect.signature(fn).parameters)


def grade_file(number: int, mine: Path, limit: int = LIMIT_S) -> tuple[int, str]:
    """(exit code, the one message to print)."""
    problem = find_problem(number)
    if problem is None:
        return 2, f"no problem C{number}: the problems are C1-C40, listed in docs/coding/index.md"
    if not mine.is_file():
        return 2, f"{mine}: no such file (write your solution there, then run make grade C={number} FILE={mine})"
    source = mine.read_text(encoding="utf-8")
    try:
        compile(source, str(mine), "exec")
    except SyntaxError as error:
        return 1, f"{mine}:{error.lineno}: syntax error: {error.msg}"
    import torch._dynamo  # noqa: F401  (loaded before the clock starts: the fake-GPU check needs it)

    grader = runpy.run_path(str(problem), run_name="grader")  # defines grade; its _check does not run
    names = _parameters(grader["grade"])
    stubs = grader["_stub"] if len(names) > 1 else (grader["_stub"],)
    _limit(limit)
    try:
        try:
            yours = runpy.run_path(str(mine), run_name="mine")
        except Exception as error:
            first = (str(error).splitlines() or [""])[0]
            return 1, f"{mine}: loading it raised {type(error).__name__}: {first}"
        entries = []
        for name, stub in zip(names, stubs, strict=True):
            if name not in yours:
                return 1, f"{mine} defines no `{name}`: C{number} asks for `{name}`, as named in the prompt"
            expected, got = _parameters(stub), _parameters(yours[name])
            if got != expected:
                got, expected = ", ".join(got), ", ".join(expected)
                return 1, f"{mine}: `{name}` takes ({got}); the prompt's signature is ({expected})"
            entries.append(yours[name])
        try:
            return 0, grader["grade"](*entries)
        except AssertionError as error:
            return 1, f"C{number} fails: {error}"
        except Exception as error:  # the grader's own bug, or something your code did to it
            return 1, f"C{number}: the grader stopped on {type(error).__name__}: {error} (please report it)"
    except TooSlow:
        return 1, f"{mine}: no answer within {limit} s: an endless loop, or far too slow (limit: --timeout)"
    finally:
        signal.alarm(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__.split("\n")[0])
    parser.add_argument("problem", help="the problem number: 13 or C13")
    parser.add_argument("file", type=Path, help="your solution, a .py file")
    parser.add_argument("--timeout", type=int, default=LIMIT_S, help=f"seconds (default {LIMIT_S})")
    args = parser.parse_args(argv)
    number = args.problem.upper().removeprefix("C")
    if not number.isdigit():
        print(f"C={args.problem}: give the problem's number, as in make grade C=13 FILE=mine.py")
        return 2
    code, message = grade_file(int(number), args.file, args.timeout)
    print(message)
    return code


if __name__ == "__main__":
    sys.exit(main())
