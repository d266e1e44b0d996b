"""What verified each snippet: the machine-readable reports the test runs write, read back for the build.

`make test` (and the GPU lane) write one JSON report per lane:

    {"schema": 1, "lane": "gpu", "torch": "2.11.0", "device": "NVIDIA H100 80GB HBM3", "date": "2026-11-30",
     "snippets": {"snippets/tensors/anatomy/strides.py": {"outcome": "passed", "sha256": "…"},
                  "snippets/distributed/data-parallelism/sync_batchnorm_dist_cuda.py":
                      {"outcome": "skipped", "reason": "1 GPU; needs 2 GPUs: …", "sha256": "…"}}}

A snippet counts as verified by a run only if it passed there *with the exact content it has now*
(same sha256), so a stale report can never put a tick on changed code. A skipped snippet is never
verified; the report keeps why it was skipped (too few GPUs, a torch outside the range its claim holds
for), so a page can say so instead of showing a tick.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

SCHEMA = 1


@dataclass(frozen=True)
class Run:
    lane: str  # "cpu" or "gpu"
    torch: str
    device: str
    date: str

    @property
    def label(self) -> str:
        """What the badge says after its tick: "CPU · torch 2.14.1" or "GPU · torch 2.11.0 · NVIDIA H100"."""
        return f"CPU · torch {self.torch}" if self.lane == "cpu" else f"GPU · torch {self.torch} · {self.device}"


@dataclass(frozen=True)
class Report:
    run: Run
    passed: dict[str, str]  # snippet path -> sha256 of the content that passed
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (sha256, why it was skipped)


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_report(text: str, origin: str) -> Report:
    """Read one report; a malformed one is an error naming its file, never silently ignored."""
    try:
        data = json.loads(text)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}, expected {SCHEMA}")
        run = Run(str(data["lane"]), str(data["torch"]), str(data["device"]), str(data["date"]))
        entries = data["snippets"].items()
        passed = {path: entry["sha256"] for path, entry in entries if entry["outcome"] == "passed"}
        skipped = {
            path: (entry["sha256"], str(entry.get("reason", "")))
            for path, entry in entries
            if entry["outcome"] == "skipped"
        }
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{origin}: not a verification report ({error})") from error
    return Report(run, passed, skipped)


def runs_verifying(reports: list[Report], path: str, text: str) -> list[Run]:
    """The runs in which this snippet, with exactly this content, passed."""
    digest = fingerprint(text)
    return [report.run for report in reports if report.passed.get(path) == digest]


def runs_skipping(reports: list[Report], path: str, text: str) -> list[tuple[Run, str]]:
    """The runs that skipped this snippet, with exactly this content, and why ("1 GPU; needs 2 GPUs: …")."""
    digest = fingerprint(text)
    return [(r.run, r.skipped[path][1]) for r in reports if r.skipped.get(path, ("", ""))[0] == digest]


def build_report(lane: str, torch: str, device: str, date: str, outcomes: dict[str, tuple[str, ...]]) -> str:
    """The JSON a test run writes: `outcomes` maps snippet path -> (outcome, file content[, skip reason])."""
    snippets = {}
    for path, (outcome, text, *reason) in outcomes.items():
        snippets[path] = {"outcome": outcome, "sha256": fingerprint(text)}
        if outcome == "skipped" and reason and reason[0]:
            snippets[path]["reason"] = reason[0]
    data = {"schema": SCHEMA, "lane": lane, "torch": torch, "device": device, "date": date, "snippets": snippets}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"
