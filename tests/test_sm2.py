"""docs/javascripts/sm2.js, the review page's schedule, against the numbers SM-2 publishes (Wozniak, 1990):
I(1) = 1 day, I(2) = 6 days, I(n) = I(n-1) × EF; EF starts at 2.5 and moves by
0.1 - (5 - q)(0.08 + (5 - q) 0.02) per review (+0.10, 0, -0.14, -0.32, -0.54, -0.80 for q = 5…0), never
below 1.3; a grade under 3 starts the repetitions again without changing EF. Run in Node, as shipped."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.snippet_files import ROOT

SM2 = ROOT / "docs" / "javascripts" / "sm2.js"
DAY = 24 * 60 * 60 * 1000
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js runs sm2.js (make test installs it for axe-core)")

RUN = """
const sm2 = require(process.argv[1]);
const [grades, start] = JSON.parse(process.argv[2]);
let state = undefined, now = start;
const seen = [];
for (const q of grades) {
  state = sm2.review(state, q, now);
  seen.push(state);
  now = state.due;
}
console.log(JSON.stringify(seen));
"""


def schedule(grades: list[int], start: int = 0) -> list[dict]:
    done = subprocess.run(
        [NODE, "-e", RUN, str(SM2), json.dumps([grades, start])], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def node(expression: str):
    script = f"const sm2 = require(process.argv[1]); console.log(JSON.stringify({expression}));"
    done = subprocess.run([NODE, "-e", script, str(SM2)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_ef_change_for_each_grade_is_the_published_one():
    assert node("[5, 4, 3, 2, 1, 0].map((q) => sm2.nextEF(2.5, q))") == [2.6, 2.5, 2.36, 2.18, 1.96, 1.7]
    assert node("sm2.nextEF(1.3, 3)") == 1.3  # never below 1.3
    assert node("sm2.nextEF(1.4, 0)") == 1.3


def test_good_every_time_gives_1_6_then_times_ef():
    states = schedule([4, 4, 4, 4, 4])
    assert [s["interval"] for s in states] == [1, 6, 15, 38, 95]  # EF stays 2.5: 6 × 2.5, 15 × 2.5 = 37.5 → 38
    assert {s["ef"] for s in states} == {2.5}
    assert [s["reps"] for s in states] == [1, 2, 3, 4, 5]


def test_easy_and_hard_move_ef_and_the_intervals_use_the_ef_before_the_review():
    easy = schedule([5, 5, 5, 5])
    assert [s["ef"] for s in easy] == [2.6, 2.7, 2.8, 2.9]
    assert [s["interval"] for s in easy] == [1, 6, 16, 45]  # 6 × 2.7 = 16.2, 16 × 2.8 = 44.8
    hard = schedule([3, 3, 3, 3])
    assert [s["ef"] for s in hard] == [2.36, 2.22, 2.08, 1.94]
    assert [s["interval"] for s in hard] == [1, 6, 13, 27]  # 6 × 2.22 = 13.32, 13 × 2.08 = 27.04


def test_a_lapse_restarts_the_intervals_and_keeps_ef():
    states = schedule([5, 5, 5, 1, 4, 4])
    assert states[3] == {**states[3], "reps": 0, "interval": 1, "ef": states[2]["ef"]}
    assert [s["interval"] for s in states[4:]] == [1, 6]


def test_the_due_date_is_the_interval_in_days_after_the_review():
    start = 1_800_000_000_000
    states = schedule([4, 4, 4], start)
    assert states[0]["due"] == start + DAY and states[0]["last"] == start
    assert states[2]["due"] == start + (1 + 6 + 15) * DAY


def test_a_grade_outside_0_to_5_is_refused():
    assert node("(() => { try { sm2.review(undefined, 6, 0); } catch (e) { return e.name; } })()") == "RangeError"
