"""`make bench` (tests/tools/bench.py): the parts whose mistakes would print wrong figures quietly."""

from __future__ import annotations

from pathlib import Path

from tests.tools import bench

WRITES_TO_THE_CACHE = """import os
from pathlib import Path

cache = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
cache.mkdir(parents=True, exist_ok=True)
(cache / "kernel.so").write_text("compiled")
"""


def test_a_pass_times_every_snippet_and_names_those_that_wrote_to_a_compile_cache(tmp_path, monkeypatch) -> None:
    compiles, plain = tmp_path / "compiles.py", tmp_path / "plain.py"
    compiles.write_text(WRITES_TO_THE_CACHE)
    plain.write_text("x = 1\n")
    monkeypatch.setattr(bench, "all_snippets", lambda: [compiles, plain])
    monkeypatch.setattr(bench, "repo_relative", lambda path: Path(path).name)
    for name, folder in bench.compile_caches(tmp_path / "caches").items():
        monkeypatch.setenv(name, folder)
    found = bench.snippet_times()
    assert sorted(found["seconds"]) == ["compiles.py", "plain.py"]
    assert all(seconds >= 0 for seconds in found["seconds"].values())
    assert found["compiled"] == ["compiles.py"]  # its cache grew; the plain one wrote nothing
    assert bench.snippet_times()["compiled"] == []  # a second pass over the same cache adds no file


STARTS_AN_INTERPRETER = """import subprocess
import sys

subprocess.run([sys.executable, "-c", "pass"], check=True)
subprocess.run(["true"], check=True)
"""


def test_a_pass_names_the_snippets_that_started_an_interpreter(tmp_path, monkeypatch) -> None:
    child, plain = tmp_path / "child.py", tmp_path / "plain.py"
    child.write_text(STARTS_AN_INTERPRETER)
    plain.write_text("import subprocess\nsubprocess.run(['true'], check=True)\n")  # a program, no interpreter
    monkeypatch.setattr(bench, "all_snippets", lambda: [child, plain])
    monkeypatch.setattr(bench, "repo_relative", lambda path: Path(path).name)
    real = bench.subprocess.Popen
    assert bench.snippet_times()["interpreters"] == ["child.py"]
    assert bench.subprocess.Popen is real  # put back


SUITE_XML = """<testsuites><testsuite>
<testcase file="tests/browser/test_site.py" name="a" time="5.0">
  <properties><property name="browser: axe colour rules (dark)" value="2.5"/></properties></testcase>
<testcase file="tests/browser/test_site.py" name="b" time="1.0"/>
<testcase file="tests/test_snippets.py" name="c" time="3.0"/>
</testsuite></testsuites>"""


def test_the_suite_split_counts_each_test_once_and_says_where_the_audits_are(capsys) -> None:
    run = bench.read_junit(SUITE_XML, wall=7.0)
    assert run.by_file == {"tests/browser/test_site.py": (2, 6.0), "tests/test_snippets.py": (1, 3.0)}
    assert run.browser_kinds == {"axe colour rules (dark)": (1, 2.5)}
    bench.print_suite(run)
    printed = capsys.readouterr().out
    assert "6.0 s     2   tests/browser/test_site.py (with its share of the loads and axe runs above)" in printed
    assert "inside these files' figures: 2.5 s" in printed
