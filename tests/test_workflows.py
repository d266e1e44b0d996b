"""The CI workflows are least-privilege and pinned: zizmor (offline) plus the project's own rules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.snippet_files import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ZIZMOR = Path(sys.executable).parent / "zizmor"
PINNED = re.compile(r"^\s*-?\s*uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*\s*$")
JOBS_THAT_MAY_WRITE = {"deploy": {"pages", "id-token"}, "newest-torch": {"issues"}}


def workflow_problems(text: str) -> list[str]:
    """What breaks the project's workflow rules (names the line where there is one)."""
    problems = []
    for number, line in enumerate(text.split("\n"), start=1):
        if re.match(r"^\s*-?\s*uses:", line) and not PINNED.match(line):
            problems.append(f"line {number}: pin the action to a full commit SHA with a `# vX.Y.Z` comment")
    data = yaml.safe_load(text)
    triggers = data.get(True, data.get("on")) or {}  # YAML 1.1 reads a bare `on:` key as True
    if "pull_request_target" in triggers:
        problems.append("pull_request_target runs fork code with a write token: use pull_request")
    if data.get("permissions") != {}:
        problems.append("top-level `permissions: {}` is required; grant per job")
    for name, job in (data.get("jobs") or {}).items():
        permissions = job.get("permissions")
        if not isinstance(permissions, dict):
            problems.append(f"job {name}: grant permissions per job as a mapping (not {permissions!r})")
            continue
        writes = {scope for scope, level in permissions.items() if level == "write"}
        if writes - JOBS_THAT_MAY_WRITE.get(name, set()):
            problems.append(f"job {name}: may not write {sorted(writes)}")
        for step in job.get("steps", []):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                if (step.get("with") or {}).get("persist-credentials") is not False:
                    problems.append(f"job {name}: checkout without `persist-credentials: false`")
    return problems


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_follows_the_rules(workflow: Path) -> None:
    problems = workflow_problems(workflow.read_text(encoding="utf-8"))
    assert not problems, "\n".join(f"{workflow.relative_to(ROOT)}: {p}" for p in problems)


def test_zizmor_finds_nothing_offline() -> None:
    done = subprocess.run([ZIZMOR, "--offline", ".github"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


SCHEMAS = {
    "vendor.github-workflows": ".github/workflows/*.yml",
    "vendor.github-issue-forms": ".github/ISSUE_TEMPLATE/*-*.yml",
    "vendor.github-issue-config": ".github/ISSUE_TEMPLATE/config.yml",
    "vendor.dependabot": ".github/dependabot.yml",
}


@pytest.mark.parametrize(("schema", "pattern"), SCHEMAS.items(), ids=list(SCHEMAS))
def test_github_files_match_their_schemas(schema: str, pattern: str) -> None:
    files = sorted(str(p) for p in ROOT.glob(pattern))
    assert files, f"nothing matches {pattern}"
    checker = Path(sys.executable).parent / "check-jsonschema"
    done = subprocess.run([checker, "--builtin-schema", schema, *files], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


BAD = """
on: pull_request_target
permissions: write-all
jobs:
  build:
    runs-on: ubuntu-24.04
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v4
"""


def test_the_rules_catch_an_unpinned_action_broad_permissions_and_pull_request_target() -> None:
    problems = workflow_problems(BAD)
    assert any("line 10: pin the action" in p for p in problems)
    assert any("pull_request_target" in p for p in problems)
    assert any("top-level `permissions: {}`" in p for p in problems)
    assert any("job build: may not write ['contents']" in p for p in problems)
    assert any("persist-credentials" in p for p in problems)


def test_zizmor_catches_the_same_workflow(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "bad.yml").write_text(BAD)
    done = subprocess.run([ZIZMOR, "--offline", ".github"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0
    assert "dangerous-triggers" in done.stdout
