"""Coverage's Collector, made without 0.1 s of `inspect.stack()` in every process it traces.

Each Coverage object's Collector records the stack it was made from (`Collector.origin`, printed only
when collectors are stopped out of order) with `coverage.debug.short_stack`, which calls
`inspect.stack()`. For each frame whose file is not a module's (pytest-xdist's `<string>`, a snippet
run as `__main__`), `inspect.getmodule` scans all of `sys.modules`
(https://github.com/python/cpython/issues/92041): in a process that has imported torch, some 5,000
modules at a forked DataLoader worker's or rank's depth of about 60 frames, 0.08-0.15 s per traced
child process, for a string nothing reads. `install()` gives the Collector the same summary (function,
file and line of each frame, the same frames left out) read from the frames themselves.

Importing this module installs it: the test processes do (tests/plugin/coverage_scope.py: DataLoader
workers are forks of them), the rank server preloads it (tests/rank_server.py: ranks are forks of it)
and a snippet's own processes import it first (sitecustomize.py beside this file). Without coverage
installed (the GPU lane) it does nothing.
"""

from __future__ import annotations

import re
import sys

BORING_PRELUDE = ["<string>", r"\bigor.py$", r"\bsite-packages\b"]  # as coverage.debug.short_stack's


def short_stack(skip: int = 0, full: bool = False, frame_ids: bool = False, short_filenames: bool = False) -> str:
    """`coverage.debug.short_stack`, from `frame.f_code` and `frame.f_lineno` instead of `inspect.stack()`."""
    from coverage.debug import short_filename

    frames = []
    frame = sys._getframe(1)  # inspect.stack()[1:]: the caller first
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    stack = frames[skip:][::-1]  # inspect.stack()[:skip:-1]
    if not full:
        for pattern in BORING_PRELUDE:
            while stack and re.search(pattern, stack[0].f_code.co_filename):
                stack = stack[1:]
    lines = []
    for each in stack:
        line = f"{each.f_code.co_name:>30s} : "
        if frame_ids:
            line += f"{id(each):#x} "
        filename = short_filename(each.f_code.co_filename) if short_filenames else each.f_code.co_filename
        lines.append(f"{line}{filename}:{each.f_lineno}")
    return "\n".join(lines)


def install() -> None:
    """Make coverage's Collector use `short_stack` (nothing when coverage is not installed)."""
    try:
        import coverage.collector
    except ImportError:
        return
    coverage.collector.short_stack = short_stack


install()
