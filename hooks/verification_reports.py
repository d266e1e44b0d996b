"""What verified each snippet: the machine-readable reports the test runs write, read back for the build.

`make test` (and the GPU lane) write one JSON report per lane:

    {"schema": 1, "lane": "cpu", "torch": "2.14.1", "device": "CPU", "date": "2026-11-30",
     "snippets": {"snippets/tensors/anatomy/strides.py": {"outcome": "passed", "sha256": "…"}}}

A snippet counts as verified by a run only if it passed there *with the exact content it has now*
(same sha256), so a stale report can never put a tick on changed code.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

SCHEMA = 1


@dataclass(frozen=True)
class Run:
    lane: str  # "cpu" or "gpu"
    torch: str
    device: str
    date: str

    @property
    def label(self) -> str:
        where = "CPU" if self.lane == "cpu" else f"CUDA · {self.device}"
        return f"{where} · torch {self.torch}"


@dataclass(frozen=True)
class Report:
    run: Run
    passed: dict[str, str]  # snippet path -> sha256 of the content that passed


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_report(text: str, origin: str) -> Report:
    """Read one report; a malformed one is an error naming its file, never silently ignored."""
    try:
        data = json.loads(text)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}, expected {SCHEMA}")
        run = Run(str(data["lane"]), str(data["torch"]), str(data["device"]), str(data["date"]))
        passed = {path: entry["sha256"] for path, entry in data["snippets"].items() if entry["outcome"] == "passed"}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{origin}: not a verification report ({error})") from error
    return Report(run, passed)


def runs_verifying(reports: list[Report], path: str, text: str) -> list[Run]:
    """The runs in which this snippet, with exactly this content, passed."""
    digest = fingerprint(text)
    return [report.run for report in reports if report.passed.get(path) == digest]


def build_report(lane: str, torch: str, device: str, date: str, outcomes: dict[str, tuple[str, str]]) -> str:
    """The JSON a test run writes: `outcomes` maps snippet path -> (outcome, file content)."""
    snippets = {path: {"outcome": outcome, "sha256": fingerprint(text)} for path, (outcome, text) in outcomes.items()}
    data = {"schema": SCHEMA, "lane": lane, "torch": torch, "device": device, "date": date, "snippets": snippets}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
