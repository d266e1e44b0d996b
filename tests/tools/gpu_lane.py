"""The GPU lane in one command: every snippet and every page's code, run to the end (never `-x`).

    python3 -m tests.tools.gpu_lane                      # in an environment that has the `gpu` group
    python3 -m tests.tools.gpu_lane --install            # a machine that already has PyTorch (and pip access)
    python3 -m tests.tools.gpu_lane --wheels .whl        # the same, offline, from wheels carried in .whl/
    python3 -m tests.tools.gpu_lane --lane=cpu           # the same selection on a CPU (how it is tested without a GPU)
    python3 -m tests.tools.gpu_lane fetch-wheels .whl    # here, with pip access: the wheels for --wheels

`make test-gpu` runs the first form in `.cache/venv-gpu/`, which holds only the `gpu` dependency group of
pyproject.toml. `--install` and `--wheels` keep the machine's own torch, torchvision and numpy (whatever
their version: a snippet whose claim needs another skips with the reason) and add the group's other,
pure-Python packages in a folder of their own, put first on PYTHONPATH.

What it leaves in `--out` (default `.cache/gpu-lane`, or `$OUT` where that is set):
- `log.txt`       pytest's whole output (skip reasons and failures listed at the end)
- `<lane>.json`   the verification report the site's badges read (or `--report PATH`)
- `summary.json`  per file (snippet or page): passed / skipped / failed and seconds; the torch version,
                  GPU name and count, Python and wall time of the run
- `summary.md`    the same as a table, ready to paste into docs/benchmarks.md

Loaded as a pytest plugin (`-p tests.tools.gpu_lane`), it adds `--lane-summary=PATH` and writes the summary.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import defaultdict
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GROUP = "gpu"
MACHINE_OWN = {"torch", "torchvision", "numpy"}  # a GPU machine's own builds are used, never replaced
# What the group's pure-Python packages need in turn; carried at the versions this environment resolved.
PURE_DEPENDENCIES = ("markdown", "mdurl", "pluggy", "iniconfig", "packaging", "pygments")


def selection() -> tuple[str, ...]:
    sys.path.insert(0, str(ROOT))
    from tests.snippet_files import GPU_SELECTION

    return GPU_SELECTION


def group_pins(group: str = GROUP) -> list[str]:
    """The group's requirements from pyproject.toml, included groups expanded (`name==version` strings)."""
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]

    def expand(name: str) -> list[str]:
        out: list[str] = []
        for entry in groups[name]:
            out += expand(entry["include-group"]) if isinstance(entry, dict) else [entry]
        return out

    return expand(group)


def _name(requirement: str) -> str:
    return requirement.split("==")[0].strip().lower()


def added_pins() -> list[str]:
    """What `--install`/`--wheels` add to a machine that has PyTorch: the group without torch, torchvision, numpy."""
    return [pin for pin in group_pins() if _name(pin) not in MACHINE_OWN]


# ---- fetch-wheels: here, with pip access -----------------------------------------------------------------
def fetch_wheels(dest: Path, python_version: str) -> int:
    pins = added_pins() + [f"{name}=={metadata.version(name)}" for name in PURE_DEPENDENCIES]
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version", python_version,
        "--implementation", "py", "--platform", "any", "-d", str(dest), *pins,
    ]  # fmt: skip
    print(" ".join(command), flush=True)
    return subprocess.run(command).returncode


def install_into(site: Path, wheels: Path | None) -> None:
    """pip-install the added packages into `site` (from the index, or offline from the `wheels` folder)."""
    site.mkdir(parents=True, exist_ok=True)
    if wheels is not None:
        found = sorted(str(p) for p in wheels.glob("*.whl"))
        if not found:
            sys.exit(f"{wheels}: no wheels here; make them with `python -m tests.tools.gpu_lane fetch-wheels {wheels}`")
        source = ["--no-index", "--no-deps", *found]
    else:
        source = added_pins()
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--upgrade", "--no-compile", "--target", str(site)]
    subprocess.run([*command, *source], check=True)


# ---- run: the selection, its log, report and summary ------------------------------------------------------
def run(
    lane: str, out: Path, report: Path | None, extra: list[str], env: dict[str, str], deadline: float | None = None
) -> int:
    """Run the selection; at `deadline` seconds, interrupt it as Ctrl-C would, so pytest still reports what ran
    (tests not reached count as failed in the report, never as passed)."""
    out.mkdir(parents=True, exist_ok=True)
    report = report or out / f"{lane}.json"
    command = [
        sys.executable, "-m", "pytest", f"--lane={lane}", "-p", "no:cacheprovider", "-p", "tests.tools.gpu_lane",
        "-p", "pytest_markdown_docs.plugin",  # the one plugin the lane needs; the machine's others stay off
        f"--lane-summary={out / 'summary.json'}", f"--verification-report={report}", "-rfEs", "--durations=20",
        *selection(), *extra,
    ]  # fmt: skip
    env = {**env, "PYTHONUNBUFFERED": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # same run on any machine
    started = time.perf_counter()
    with (out / "log.txt").open("w", encoding="utf-8") as log:
        log.write(" ".join(command) + "\n")
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert process.stdout is not None
        timer = threading.Timer(deadline, process.send_signal, [signal.SIGINT]) if deadline else None
        if timer:
            timer.start()
        for line in process.stdout:
            sys.stdout.write(line)
            log.write(line)
            log.flush()  # what ran is on disk even if the machine goes away
        code = process.wait()
        if timer:
            timer.cancel()
        log.write(f"\nexit code {code}, {time.perf_counter() - started:.0f} s\n")
    summary = out / "summary.json"
    if summary.is_file():
        (out / "summary.md").write_text(
            summary_table(json.loads(summary.read_text(encoding="utf-8"))), encoding="utf-8"
        )
    print(f"gpu_lane: exit code {code}; log, report and summary in {out}", flush=True)
    return code


def summary_table(summary: dict) -> str:
    head = (
        f"GPU lane selection on the {summary['lane']} lane, {summary['date']}: torch {summary['torch']}, "
        f"{summary['device']} ×{summary['gpus']}, Python {summary['python']}; {summary['wall_s']:.0f} s wall. "
        f"Totals: {summary['totals']['passed']} passed, {summary['totals']['skipped']} skipped, "
        f"{summary['totals']['failed']} failed."
    )
    rows = ["| file | passed | skipped | failed | seconds |", "| --- | ---: | ---: | ---: | ---: |"]
    for path, entry in summary["files"].items():
        rows.append(
            f"| `{path}` | {entry['passed']} | {entry['skipped']} | {entry['failed']} | {entry['seconds']:.1f} |"
        )
    return head + "\n\n" + "\n".join(rows) + "\n"


# ---- the pytest plugin half: --lane-summary -----------------------------------------------------------------
def pytest_addoption(parser) -> None:
    parser.addoption("--lane-summary", metavar="PATH", help="write per-file passed/skipped/failed and seconds as JSON")


_files: dict[str, dict] = defaultdict(lambda: {"passed": 0, "skipped": 0, "failed": 0, "seconds": 0.0, "skips": []})
_outcome: dict[str, str] = {}
_started = time.perf_counter()


def _file_of(nodeid: str) -> str:
    """A snippet's path for the runner's tests, else the test file or page the node id names."""
    if "[" in nodeid and nodeid.startswith("tests/test_snippets.py::"):
        return nodeid.split("[", 1)[1].rstrip("]")
    return nodeid.split("::", 1)[0]


def pytest_runtest_logreport(report) -> None:
    entry = _files[_file_of(report.nodeid)]
    entry["seconds"] += report.duration
    if _outcome.get(report.nodeid) != "failed" and (report.failed or report.skipped or report.when == "call"):
        _outcome[report.nodeid] = report.outcome
    if report.skipped and isinstance(report.longrepr, tuple):
        entry["skips"].append(str(report.longrepr[2]).removeprefix("Skipped: "))


def pytest_sessionfinish(session) -> None:
    target = session.config.getoption("lane_summary")
    if not target:
        return
    import torch

    for nodeid, outcome in _outcome.items():
        _files[_file_of(nodeid)][outcome] += 1
    files = {path: {**entry, "skips": sorted(set(entry["skips"]))} for path, entry in sorted(_files.items())}
    gpu = torch.cuda.is_available()
    summary = {
        "lane": session.config.getoption("lane"),
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0) if gpu else "CPU",
        "gpus": torch.cuda.device_count() if gpu else 0,
        "python": platform.python_version(),
        "wall_s": round(time.perf_counter() - _started, 1),
        "exit_status": int(session.exitstatus),
        "totals": {k: sum(f[k] for f in files.values()) for k in ("passed", "skipped", "failed")},
        "files": files,
    }
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


# ---- command line ----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fetch-wheels"]:
        parser = argparse.ArgumentParser(prog="gpu_lane fetch-wheels", description="download the wheels --wheels needs")
        parser.add_argument("dest", type=Path, help="folder for the wheels, such as .whl")
        parser.add_argument("--python-version", default="3.12", help="the GPU machine's Python (default 3.12)")
        args = parser.parse_args(argv[1:])
        return fetch_wheels(args.dest, args.python_version)
    parser = argparse.ArgumentParser(prog="gpu_lane", description=__doc__.split("\n\n")[0])
    parser.add_argument("--lane", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or ROOT / ".cache" / "gpu-lane"))
    parser.add_argument("--report", type=Path, help="where the verification report goes (default OUT/<lane>.json)")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--install", action="store_true", help="add the group's pure-Python packages from the index")
    given.add_argument("--wheels", type=Path, help="add them offline from this folder (see fetch-wheels)")
    parser.add_argument("--deadline", type=float, help="stop after this many seconds, keeping what ran (as Ctrl-C)")
    args, extra = parser.parse_known_args(argv)
    env = dict(os.environ)
    if args.install or args.wheels:
        site = Path(tempfile.gettempdir()) / "gpu-lane-site-packages"  # never under --out: $OUT comes back whole
        install_into(site, args.wheels)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return run(args.lane, args.out.resolve(), args.report, extra, env, args.deadline)


if __name__ == "__main__":
    sys.exit(main())
