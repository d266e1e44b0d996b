"""How the tests launch a multi-process snippet's ranks: forked from one server per test process that
has imported torch, instead of each rank starting an interpreter that imports torch itself.

A `*_dist.py` snippet starts its ranks with `elastic_launch` (what torchrun sets up), which uses
multiprocessing's "spawn": each rank is a new interpreter that imports torch (and, once DDP or
`fully_shard` is built, torch._dynamo: 2 s more), re-imports the snippet as `__mp_main__` and unpickles
the function it runs. Run as its own script, such a snippet cost 13-19 s of a test worker: three
interpreters importing torch for a second of work. Here the snippet runs in the test's own process,
like every other snippet, and its launches use multiprocessing's "forkserver" instead of "spawn". A
forkserver rank goes through the same steps (the snippet re-imported as `__mp_main__`, the function
pickled by reference, so a launch outside `if __name__ == "__main__":` or a function defined inside
another still fails), but starts as a fork of a server process that imported the modules below once.
What differs for the snippet is only that those modules are already imported when its rank starts.

The server is started with the environment a spawned rank would have had (the launcher's, without
coverage's variable: the ranks are traced by coverage's multiprocessing support, which starts in each
rank before its function runs; Deprecation and Future warnings as errors), and started again whenever
a launch finds that environment changed (a snippet that sets TORCH_DISTRIBUTED_DEBUG before launching),
since a forked rank inherits the server's environment where a spawned one inherits the launcher's. Its
standard output and error are files: what a launch's ranks print is added to the snippet's output
where the launch returns, in the order a terminal shows it, and what they wrote to standard error is
added to a failure.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import gc
import multiprocessing
import multiprocessing.forkserver
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

# Imported once by the server, so that no rank imports them: torch, what every snippet's launch
# imports, and what DDP and fully_shard import when they are built; and, under `--cov`, what spares
# each rank's coverage 0.1 s of start-up (tests/late_coverage/coverage_origin.py).
PRELOADED = ["torch", "torch.distributed.launcher.api", "torch._dynamo", "tests.late_coverage.coverage_origin"]
SPAWNED_ENVIRONMENT = {"PYTHONWARNINGS": "error::DeprecationWarning,error::FutureWarning"}  # as run_in_subprocess
UNTRACED = "COVERAGE_PROCESS_CONFIG"  # coverage's subprocess hook: the server would trace its imports
PER_TEST = "PYTEST_CURRENT_TEST"  # pytest's: changes with every test, read by nothing a rank runs
HANDLED_BY_THE_AGENT = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT")  # elastic's agent replaces these handlers


@dataclasses.dataclass
class _Server:
    stdout: Path
    stderr: Path
    environment: dict[str, str] = dataclasses.field(default_factory=dict)


_server: _Server | None = None


def rank_environment() -> dict[str, str]:
    """The environment a spawned rank would start with now: the launcher's, without coverage's variable
    (as tests/late_coverage hands it on), with Deprecation and Future warnings as errors."""
    return {**{k: v for k, v in os.environ.items() if k != UNTRACED}, **SPAWNED_ENVIRONMENT}


def _same(first: dict[str, str], second: dict[str, str]) -> bool:
    return {k: v for k, v in first.items() if k != PER_TEST} == {k: v for k, v in second.items() if k != PER_TEST}


def running_server() -> _Server:
    """The server for a launch now, started if none is running or if the launcher's environment has
    changed since it started (a forked rank inherits the server's environment, a spawned one the
    launcher's: a snippet that sets a variable before its launch gets a server started with it)."""
    global _server
    if _server is None:
        folder = Path(tempfile.mkdtemp(prefix="rank-server-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # with this process (the server's open files too)
        _server = _Server(folder / "stdout", folder / "stderr")
        _server.stdout.touch()
        _server.stderr.touch()
    wanted = rank_environment()
    forkserver = multiprocessing.forkserver._forkserver
    if not _same(_server.environment, wanted):
        forkserver._stop()  # nothing when none is running
    multiprocessing.set_forkserver_preload(PRELOADED)
    with _environment(wanted), _standard_streams(_server.stdout, _server.stderr):
        multiprocessing.forkserver.ensure_running()  # starts one with this environment and these streams
    _server.environment = wanted
    return _server


@contextlib.contextmanager
def _environment(wanted: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(wanted)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _standard_streams(stdout: Path, stderr: Path) -> Iterator[None]:
    """File descriptors 1 and 2 of this process point at these files (appending) for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    try:
        for descriptor, path in ((1, stdout), (2, stderr)):
            opened = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.dup2(opened, descriptor)
            os.close(opened)
        yield
    finally:
        for descriptor, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, descriptor)
            os.close(copy)


def _written_since(path: Path, offset: int) -> str:
    with path.open("rb") as file:
        file.seek(offset)
        return file.read().decode(errors="replace")


class Hung(Exception):
    """The launch ran past its time limit."""


@contextlib.contextmanager
def ranks_from_the_server(timeout_s: float) -> Iterator[None]:
    """For the block: every `elastic_launch` that would spawn its ranks forks them from the server, adds
    what they printed to `sys.stdout` when it returns, and a launch still running after `timeout_s`
    seconds has its ranks shut down and raises `Hung`. The signal handlers the agent and the timer replace are
    put back."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.launcher import api

    real_launch = api.launch_agent

    def launch_agent(config, entrypoint, args, *rest, **options):
        if config.start_method != "spawn":
            return real_launch(config, entrypoint, args, *rest, **options)
        config = dataclasses.replace(config, start_method="forkserver")
        paused = signal.setitimer(signal.ITIMER_REAL, 0)[0] if timed else 0  # a server's start does not count
        try:
            server = running_server()
        finally:
            if paused:
                signal.setitimer(signal.ITIMER_REAL, paused)
        printed, complained = server.stdout.stat().st_size, server.stderr.stat().st_size
        try:
            return real_launch(config, entrypoint, args, *rest, **options)
        except BaseException as error:
            if errors := _written_since(server.stderr, complained).strip():
                shown = errors if len(errors) <= 8000 else f"{errors[:4000]}\n[...]\n{errors[-4000:]}"
                error.add_note(f"what the ranks wrote to standard error:\n{shown}")
            raise
        finally:
            sys.stdout.write(_written_since(server.stdout, printed))

    def time_is_up(signum, frame):
        raise SignalException(f"still running after {timeout_s:g} s", sigval=signal.Signals(signum))

    handlers = {name: signal.getsignal(getattr(signal, name)) for name in (*HANDLED_BY_THE_AGENT, "SIGALRM")}
    timed = threading.current_thread() is threading.main_thread()  # signals reach the main thread only
    if timed:
        signal.signal(signal.SIGALRM, time_is_up)
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
    api.launch_agent = launch_agent
    try:
        yield
    except SignalException as error:
        if error.sigval == signal.SIGALRM:
            raise Hung(str(error)) from error
        raise
    finally:
        api.launch_agent = real_launch
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for name, handler in handlers.items():
            signal.signal(getattr(signal, name), handler)
        # The agent's store, sockets and pipes sit in reference cycles: collected now, they close their
        # 16 or so descriptors here instead of in the middle of a later snippet that counts open files.
        gc.collect()
