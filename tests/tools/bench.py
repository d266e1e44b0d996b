"""`make bench`: where the time and the bytes go, against the project's budgets (not part of `make test`).

Prints one table with PASS/FAIL per budget (issue "Benchmarks"): build time cold and warm, with and
without the labs, and each plugin's or hook's share; the snippet suite against its physical floor;
per-snippet and per-lab times (snippets with their compile caches warm, and those that compile also
cold, as on a fresh clone); page weight; search index size; the whole suite as `make test` runs it,
split by test file and the browser checks by kind; and the same build on a synthetic copy of the guide
at 10x its size. `--suite-only` prints just the suite split (no budgets: figures only, never asserted).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gzip
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

from tests.snippet_files import ROOT, all_snippets, needs_gpu, repo_relative, starts_processes

sys.path.insert(0, str(ROOT / "hooks"))  # as pytest's `pythonpath` does: the runner's rules live in hooks/
PY = sys.executable
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
KB, MB = 1024, 1024 * 1024
SUITE_BUDGET_S = 20 * 60  # the project's suite budget: the whole `make test` on the 2-core project machine


def timed(command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env={**ENV, **(env or {})}, capture_output=True, text=True)
    if done.returncode != 0:  # a figure for a failing command would be meaningless: show why and stop
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return time.perf_counter() - started


# ---- build --------------------------------------------------------------------------------------
def build_times(project: Path, site: Path) -> tuple[float, float]:
    """Wall time of `mkdocs build --strict` in a fresh process: cold (no caches), then warm."""
    shutil.rmtree(project / ".cache", ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    command = [PY, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)]
    return timed(command, project), timed(command, project)


def copy_without_labs(target: Path) -> None:
    """The site's sources with the labs (snippets/*/lab.py and their nav entries) taken out."""
    for name in ("hooks", "docs", "snippets"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "lab.py", "lab.ipynb"))
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (target / "mkdocs.yml").write_text(re.sub(r"(?m)^ +- Lab: .*\n", "", config), encoding="utf-8")


def build_shares(project: Path, site: Path) -> tuple[float, dict[str, float]]:
    """Seconds spent in each plugin's and hook's events, and in Markdown rendering, in one build."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.structure.pages import Page

    spent: dict[str, float] = defaultdict(float)

    def timing(origin: str, function):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[origin] += time.perf_counter() - started

        return wrapper

    config = load_config(str(project / "mkdocs.yml"), site_dir=str(site))
    plugins = config.plugins
    for event, methods in plugins.events.items():
        plugins.events[event] = [timing(f"{plugins._event_origins.get(m, '?')}", m) for m in methods]
    original_render = Page.render
    Page.render = timing("Markdown rendering (all extensions)", original_render)
    started = time.perf_counter()
    try:
        with contextlib.redirect_stderr(open(os.devnull, "w")):
            build(config)
    finally:
        Page.render = original_render
    return time.perf_counter() - started, dict(spent)


# ---- suite --------------------------------------------------------------------------------------
def snippet_times() -> dict:
    """Each snippet's own run time, with the runner's state handling, torch already imported, and
    torchvision's pretrained weights where the suite puts them (tests/plugin/offline_weights.py); which
    snippets compiled something (wrote to Inductor's cache or the C++ extension builds); and which started
    a Python interpreter (a page that shows a fresh process reading its environment pays a torch import)."""
    from tests.plugin.offline_weights import write_checkpoint
    from tests.plugin.torch_state import fresh_torch_state
    from tests.run_code import run_snippet

    importlib.import_module("torchvision")  # imported once per run, as in the suite: the floor's, not a snippet's

    times, compiled, interpreters = {}, [], []
    caches = [Path(os.environ[name]) for name in COMPILE_CACHES if name in os.environ]
    with tempfile.TemporaryDirectory() as home, silenced_stderr(), interpreter_starts() as started:
        os.environ["TORCH_HOME"] = str(write_checkpoint(Path(home)).parents[2])
        for path in all_snippets():
            if needs_gpu(path):
                continue
            cached, count = files_in(caches), len(started)
            with fresh_torch_state():
                begun = time.perf_counter()
                run_snippet(path)
                times[repo_relative(path)] = time.perf_counter() - begun
            if files_in(caches) > cached:
                compiled.append(repo_relative(path))
            if len(started) > count:
                interpreters.append(repo_relative(path))
    return {"seconds": times, "compiled": compiled, "interpreters": interpreters}


@contextlib.contextmanager
def interpreter_starts():
    """A list that grows by one each time this process starts `sys.executable` (through subprocess)."""
    started: list[list[str]] = []
    real = subprocess.Popen

    class Recording(real):
        def __init__(self, args, *rest, **options):
            command = [str(part) for part in args] if isinstance(args, (list, tuple)) else [str(args)]
            if command and command[0] == sys.executable:
                started.append(command)
            super().__init__(args, *rest, **options)

    subprocess.Popen = Recording
    try:
        yield started
    finally:
        subprocess.Popen = real


def files_in(folders: list[Path]) -> set[Path]:
    return {file for folder in folders if folder.is_dir() for file in folder.rglob("*") if file.is_file()}


COMPILE_CACHES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TORCH_EXTENSIONS_DIR": "torch_extensions"}


def compile_caches(folder: Path) -> dict[str, str]:
    """The environment that points Inductor's cache and the C++ extension builds at `folder`."""
    return {name: str(folder / sub) for name, sub in COMPILE_CACHES.items()}


def snippet_pass(caches: Path) -> dict:
    """`snippet_times` in a fresh interpreter as `make test` runs snippets (SUITE_ENV), with its compile
    caches in `caches`: an empty folder gives what a fresh clone pays, a second pass what a rerun pays."""
    report = caches / "times.json"
    command = [PY, "-m", "tests.tools.bench", "--snippet-times", str(report)]
    done = subprocess.run(command, cwd=ROOT, env={**ENV, **SUITE_ENV, **compile_caches(caches)}, text=True)
    if done.returncode != 0:
        sys.exit(f"timing the snippets failed ({done.returncode})")
    return json.loads(report.read_text(encoding="utf-8"))


COLD_COMPILE_S = 60  # each such snippet's run on a fresh clone (issue 24: the compile checks took 14-75 s in the brief)


@contextlib.contextmanager
def silenced_stderr():
    """Snippets' expected warnings and logs go to stderr at the file-descriptor level: keep the table clean."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def torch_start() -> float:
    """One interpreter start with what every run imports once: torch, and torchvision for the data pages."""
    return statistics.median(timed([PY, "-c", "import torch, torchvision"]) for _ in range(3))


def lab_times() -> dict[str, float]:
    """Each lab's solved run in a fresh Jupyter kernel (kernel start and imports included), as the tests run it."""
    sys.path.insert(0, str(ROOT / "hooks"))  # as pytest's `pythonpath` does
    from lab_format import parse_lab
    from labs import lab_sources

    from tests.lab_runs import run_in_kernel, solved_cells

    times = {}
    for lab in lab_sources(ROOT):
        cells = parse_lab(lab.read_text(encoding="utf-8"), repo_relative(lab))
        with tempfile.TemporaryDirectory() as tmp, silenced_stderr():  # the kernel's start-up notices
            started = time.perf_counter()
            run_in_kernel(solved_cells(cells), cwd=Path(tmp))
            times[repo_relative(lab)] = time.perf_counter() - started
    return times


# ---- the whole suite, by test file and browser check ---------------------------------------------
# As `make test` runs it (Makefile): one xdist worker per core, torch on one thread each, Inductor
# compiling in the worker, coverage on.
SUITE = ["-n", "auto", "--dist", "loadgroup", "--cov", "--cov-report=", "-q", "-p", "no:cacheprovider"]
SUITE_ENV = {"OMP_NUM_THREADS": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}


@dataclasses.dataclass
class SuiteRun:
    wall: float
    returncode: int
    tests: int
    by_file: dict[str, tuple[int, float]]  # test file -> (tests, seconds: setup + call + teardown, summed)
    browser_kinds: dict[str, tuple[int, float]]  # "page load + CSP/host/console (light)" -> (loads, seconds)


def suite_run(junit: Path) -> SuiteRun:
    """Run the suite once with a JUnit XML report and sum its per-test times by file and browser check."""
    command = [PY, "-m", "pytest", *SUITE, f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env={**ENV, **SUITE_ENV}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if not junit.is_file():
        sys.exit(f"the suite did not run ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return read_junit(junit.read_text(encoding="utf-8"), wall, done.returncode)


def read_junit(xml: str, wall: float, returncode: int = 0) -> SuiteRun:
    by_file: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, list[float]] = defaultdict(list)
    cases = ElementTree.fromstring(xml).iter("testcase")
    for case in cases:
        by_file[case.get("file") or case.get("classname", "?")].append(float(case.get("time", 0)))
        for prop in case.iter("property"):
            if prop.get("name", "").startswith("browser: "):
                kinds[prop.get("name").removeprefix("browser: ")].append(float(prop.get("value")))
    return SuiteRun(
        wall=wall,
        returncode=returncode,
        tests=sum(len(t) for t in by_file.values()),
        by_file={f: (len(t), sum(t)) for f, t in by_file.items()},
        browser_kinds={k: (len(t), sum(t)) for k, t in kinds.items()},
    )


# A page's audit (both schemes) is charged to the first test that asks for it, in one of these files.
AUDITING_FILES = ("test_accessibility.py", "test_csp.py", "test_site.py")


def print_suite(run: SuiteRun) -> None:
    total = sum(seconds for _, seconds in run.by_file.values())
    verdict = "passed" if run.returncode == 0 else f"FAILED (pytest exited {run.returncode})"
    print(f"\nwhole suite as `make test` runs it: {run.wall:.1f} s wall, {run.tests} tests {verdict}, "
          f"{total:.1f} s of test time")  # fmt: skip
    print("(test time = setup + call + teardown summed over tests, on every worker; a session fixture is charged")
    print(" to the first test that uses it: the site build, the browser start)")
    print("\nby test file (descending):")
    for file, (count, seconds) in sorted(run.by_file.items(), key=lambda item: -item[1][1]):
        print(f"  {seconds:8.1f} s  {100 * seconds / max(total, 1e-9):4.1f} %  {count:4d} tests  {file}")
    browser = {f: v for f, v in run.by_file.items() if f.startswith("tests/browser/")}
    print(f"\nbrowser checks by kind ({sum(s for _, s in browser.values()):.1f} s in tests/browser/):")
    for kind, (count, seconds) in sorted(run.browser_kinds.items()):
        print(f"  {seconds:8.1f} s  {count:4d}x  {kind}")
    audited = sum(seconds for _, seconds in run.browser_kinds.values())
    for file, (count, seconds) in sorted(browser.items(), key=lambda item: -item[1][1]):
        shared = " (with its share of the loads and axe runs above)" if file.endswith(AUDITING_FILES) else ""
        print(f"  {seconds:8.1f} s  {count:4d}   {file}{shared}")
    print(f"  (the per-page loads and axe runs above are inside these files' figures: {audited:.1f} s)")


# ---- weight -------------------------------------------------------------------------------------
def transferred(site: Path, page: str) -> int:
    """Gzipped bytes of a page and the same-site CSS/JS it loads on arrival."""
    html_file = site / page
    html = html_file.read_text(encoding="utf-8")
    assets = re.findall(r'<(?:script[^>]+src|link[^>]+rel="stylesheet"[^>]+href)="([^"]+)"', html)
    files = [html_file] + [
        (html_file.parent / asset.split("?")[0]).resolve() for asset in assets if not asset.startswith("http")
    ]
    return sum(len(gzip.compress(f.read_bytes(), 6)) for f in files if f.is_file())


def folder_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


# ---- scale --------------------------------------------------------------------------------------
def synthetic_copy(target: Path, copies: int) -> None:
    """The guide with every chapter repeated `copies` times (auto-navigation, includes rewritten)."""
    for name in ("hooks", "docs", "snippets"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (target / "mkdocs.yml").write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "", config), encoding="utf-8")
    chapters = [d.name for d in (ROOT / "snippets").iterdir() if d.is_dir() and (ROOT / "docs" / d.name).is_dir()]
    for chapter in chapters:
        for k in range(2, copies + 1):
            shutil.copytree(ROOT / "snippets" / chapter, target / "snippets" / f"{chapter}-{k}")
            pages = target / "docs" / f"{chapter}-{k}"
            shutil.copytree(ROOT / "docs" / chapter, pages)
            for page in pages.rglob("*.md"):
                text = page.read_text(encoding="utf-8").replace(f"snippets/{chapter}/", f"snippets/{chapter}-{k}/")
                page.write_text(text, encoding="utf-8")


def scale_build(copies: int) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        synthetic_copy(project, copies)
        site = project / "site"
        seconds = timed([PY, "-m", "mkdocs", "build", "-q", "-d", str(site)], project)
        index = (site / "search" / "search_index.json").read_bytes()
        pages = len(list((project / "docs").rglob("*.md")))
        return seconds, len(gzip.compress(index, 6)), pages


# ---- report -------------------------------------------------------------------------------------
def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-suite", action="store_true", help="skip the (slow) full-suite timing")
    parser.add_argument(
        "--suite-only", action="store_true", help="only the whole suite, by test file and browser check"
    )
    parser.add_argument("--snippet-times", type=Path, help=argparse.SUPPRESS)  # one pass of `snippet_pass`
    args = parser.parse_args()
    if args.snippet_times:
        args.snippet_times.write_text(json.dumps(snippet_times()), encoding="utf-8")  # under compile_caches
        return
    if args.suite_only:
        with tempfile.TemporaryDirectory() as tmp:
            print_suite(suite_run(Path(tmp) / "suite.xml"))
        return
    rows: list[tuple[str, str, str]] = []  # what, figure, budget verdict

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        cold, warm = build_times(ROOT, site)
        rows += [("build --strict, cold (process wall)", f"{cold:.2f} s", ""),
                 ("build --strict, warm (process wall)", f"{warm:.2f} s", f"{verdict(warm <= 15)} ≤ 15 s")]  # fmt: skip
        bare = Path(tmp) / "without-labs"
        copy_without_labs(bare)
        bare_cold, bare_warm = build_times(bare, bare / "site")
        rows += [("build --strict without the labs, cold / warm", f"{bare_cold:.2f} s / {bare_warm:.2f} s", "")]
        total, shares = build_shares(ROOT, Path(tmp) / "site-profiled")
        for origin, seconds in sorted(shares.items(), key=lambda item: -item[1]):
            rows.append((f"  share: {origin}", f"{seconds:.2f} s ({100 * seconds / total:.0f} %)", ""))
        home, question = transferred(site, "index.html"), transferred(site, "tensors/anatomy/index.html")
        index = (site / "search" / "search_index.json").read_bytes()
        rows += [
            ("home page, transferred (gzip, HTML+CSS+JS)", f"{home / KB:.0f} KB", ""),
            ("question page tensors/anatomy, transferred", f"{question / KB:.0f} KB",
             f"{verdict(question <= 300 * KB)} ≤ 300 KB"),
            ("site total on disk", f"{folder_size(site) / MB:.1f} MB", ""),
            ("search index raw / gzip", f"{len(index) / KB:.0f} KB / {len(gzip.compress(index, 6)) / KB:.0f} KB", ""),
        ]  # fmt: skip

    with tempfile.TemporaryDirectory() as caches:  # one compile cache, empty at first, as on a fresh clone
        cold, warm = snippet_pass(Path(caches)), snippet_pass(Path(caches))
        times = warm["seconds"]
        start = torch_start()
        floor = start + sum(times.values())  # the suite runs the multi-process snippets too
        runner = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_snippets.py", "-m", "not browser"]
        suite = timed(runner, env={**SUITE_ENV, **compile_caches(Path(caches))})
    # a snippet that compiles (it wrote to a compile cache on the cold pass) has its own budget, cold;
    # the others are judged warm: in-process ≤ 2 s, multi-process ≤ 20 s. A snippet that starts an
    # interpreter (its page shows a fresh process) is a multi-process one: that start alone is a torch import
    compiling = {p: cold["seconds"][p] for p in cold["compiled"]}
    processes = {p for p in times if starts_processes(ROOT / p)} | set(warm["interpreters"])
    multi = {p: t for p, t in times.items() if p in processes and p not in compiling}
    in_process = {p: t for p, t in times.items() if p not in multi and p not in compiling}
    rows += [
        ("interpreter start, torch and torchvision imported", f"{start:.2f} s", ""),
        (f"sum of {len(times)} snippets' own run time (compile caches warm)", f"{sum(times.values()):.2f} s", ""),
        ("snippet suite wall (tests/test_snippets.py) / floor", f"{suite:.2f} s / {floor:.2f} s = {suite / floor:.2f}x",
         f"{verdict(suite <= 1.5 * floor)} ≤ 1.5x"),
        ("slowest in-process snippet that compiles nothing", f"{max(in_process.values(), default=0):.2f} s",
         f"{verdict(all(t <= 2 for t in in_process.values()))} each ≤ 2 s"),
        (f"{len(multi)} snippets that start processes (ranks or an interpreter), none compiling: slowest",
         f"{max(multi.values(), default=0):.2f} s",
         f"{verdict(all(t <= 20 for t in multi.values()))} each ≤ 20 s"),
        (f"{len(compiling)} snippets that compile, cold cache: slowest / added by cold",
         f"{max(compiling.values(), default=0):.2f} s / {sum(compiling[p] - times[p] for p in compiling):.2f} s",
         f"{verdict(all(t <= COLD_COMPILE_S for t in compiling.values()))} each ≤ {COLD_COMPILE_S} s"),
    ]  # fmt: skip
    labs = lab_times()
    rows.append((f"{len(labs)} labs solved in a Jupyter kernel, slowest / total",
                 f"{max(labs.values(), default=0):.2f} s / {sum(labs.values()):.2f} s", ""))  # fmt: skip
    whole = None
    if not args.skip_suite:
        with tempfile.TemporaryDirectory() as tmp:
            whole = suite_run(Path(tmp) / "suite.xml")
        budget = f"{verdict(whole.wall <= SUITE_BUDGET_S)} ≤ {SUITE_BUDGET_S // 60} min"
        rows.append((f"whole CPU test suite as make test runs it ({os.cpu_count()} cores)", f"{whole.wall:.1f} s",
                     budget if whole.returncode == 0 else f"FAIL: pytest exited {whole.returncode}"))  # fmt: skip

    one_time, one_index, one_pages = scale_build(1)
    ten_time, ten_index, ten_pages = scale_build(10)
    rows += [
        (f"synthetic 1x: {one_pages} pages, build", f"{one_time:.2f} s", ""),
        (f"synthetic 10x: {ten_pages} pages, build", f"{ten_time:.2f} s ({ten_time / one_time:.1f}x)",
         f"{verdict(ten_time <= 10 * one_time)} ≤ linear"),
        ("synthetic 10x: search index gzip", f"{ten_index / KB:.0f} KB", f"{verdict(ten_index <= 1.5 * MB)} ≤ 1.5 MB"),
    ]  # fmt: skip

    width = max(len(what) for what, _, _ in rows)
    print(f"{'what':<{width}}  {'figure':<28}  budget")
    for what, figure, budget in rows:
        print(f"{what:<{width}}  {figure:<28}  {budget}")
    for title, group in (("slowest in-process snippets", in_process), ("snippets that start processes", multi)):
        print(f"\n{title} that compile nothing:")
        for path, seconds in sorted(group.items(), key=lambda item: -item[1])[:10]:
            print(f"  {seconds:6.2f} s  {path}")
    print("\nsnippets that compile: cold cache (a fresh clone) / warm cache (a rerun):")
    for path, seconds in sorted(compiling.items(), key=lambda item: -item[1]):
        print(f"  {seconds:6.2f} s / {times[path]:5.2f} s  {path}")
    print("\nlabs:")
    for path, seconds in sorted(labs.items(), key=lambda item: -item[1]):
        print(f"  {seconds:6.2f} s  {path}")
    if whole is not None:
        print_suite(whole)
    sys.exit(1 if any(budget.startswith("FAIL") for _, _, budget in rows) else 0)


if __name__ == "__main__":
    main()
