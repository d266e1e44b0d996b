"""A multi-process snippet runs in the test's process, its ranks forked from the rank server
(tests/rank_server.py): as spawned ranks would, they re-import the snippet and unpickle their function,
see the launcher's environment and print into the snippet's output; a hung launch fails its test."""

from __future__ import annotations

import multiprocessing.forkserver
import os
import signal
import time
from pathlib import Path

import pytest
from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

from tests.run_code import run_launching_ranks

LAUNCH = """
import os, time
from torch.distributed.launcher.api import LaunchConfig, elastic_launch

def launch(function):
    config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
                          rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="test")
    return elastic_launch(config, function)()
"""
REPORTING_RANKS = """
def main():
    print(f"rank {os.environ['RANK']} starts", flush=True)
    return os.getpid(), os.getppid(), os.environ.get("SET_BEFORE_LAUNCH"), __name__

if __name__ == "__main__":
    os.environ["SET_BEFORE_LAUNCH"] = "seen"
    print("launching")
    ranks = launch(main)
    print("returned", sorted(ranks))
    print(*ranks.values(), sep="\\n")
"""
UNPICKLABLE_FUNCTION = """
if __name__ == "__main__":
    launch(lambda: 1)
"""
UNGUARDED_LAUNCH = """
def main():
    return 1

launch(main)
"""
HANGING_RANKS = """
def main():  # each rank leaves its pid beside the snippet (an environment variable would restart the server)
    open(os.path.join(os.path.dirname(__file__), "pids", str(os.getpid())), "w").close()
    time.sleep(60)

if __name__ == "__main__":
    launch(main)
"""


def _snippet(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(LAUNCH + body, encoding="utf-8")
    return path


def test_ranks_are_forked_from_the_server_see_the_launchers_environment_and_print_into_the_output(tmp_path) -> None:
    handlers = {name: signal.getsignal(getattr(signal, name)) for name in ("SIGTERM", "SIGINT", "SIGALRM")}
    lines = run_launching_ranks(_snippet(tmp_path, "ranks_dist.py", REPORTING_RANKS)).splitlines()
    assert lines[0] == "launching"
    assert sorted(lines[1:3]) == ["rank 0 starts", "rank 1 starts"]  # in the output, where the launch returned
    assert lines[3] == "returned [0, 1]"
    server = multiprocessing.forkserver._forkserver._forkserver_pid
    for line in lines[4:]:
        pid, parent, variable, module = eval(line)
        assert pid != os.getpid() and parent == server  # a fork of the server, not of this process
        assert variable == "seen"  # set by the launcher before it launched, as a spawned rank sees it
        assert module == "__mp_main__"  # the snippet re-imported, as under spawn
    assert {name: signal.getsignal(getattr(signal, name)) for name in handlers} == handlers  # the agent's undone


def test_a_launch_that_spawn_would_refuse_still_fails(tmp_path: Path) -> None:
    """What "fork" would let through: a function that cannot be pickled, a launch outside the main guard."""
    with pytest.raises(Exception, match="pickle"):
        run_launching_ranks(_snippet(tmp_path, "local_dist.py", UNPICKLABLE_FUNCTION))
    with pytest.raises(ChildFailedError, match=r"in <module>\n +launch\(main\)"):  # each rank launches again
        run_launching_ranks(_snippet(tmp_path, "unguarded_dist.py", UNGUARDED_LAUNCH))


def test_a_hung_launch_fails_its_test_and_its_ranks_are_stopped(tmp_path: Path, monkeypatch) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    alarm = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr("tests.run_code.DIST_TIMEOUT_S", 8)  # the ranks start well before
    with pytest.raises(AssertionError, match="still running after 8 s"):
        run_launching_ranks(_snippet(tmp_path, "hang_dist.py", HANGING_RANKS))
    assert signal.getsignal(signal.SIGALRM) == alarm and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    ranks = [int(path.name) for path in pids.iterdir()]
    assert len(ranks) == 2
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in ranks) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in ranks)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
