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


# ---- Fork safety: no job that can run on a GPU runner is reachable from a pull request's own workflows ----
# On these events GitHub runs the workflow files *of the pull request* (its merge commit), so a fork can
# rewrite them: drop an `if:`, change `runs-on:`. A GPU job is safe only in a workflow that no such event
# starts, directly or through a reusable workflow it calls (`jobs.<id>.uses`). A job's `if:` is ignored
# on purpose: the fork edits it. merge_group is counted too (the queue runs the branch's definitions).
PR_DEFINED_EVENTS = {"pull_request", "pull_request_review", "pull_request_review_comment", "merge_group"}
# GitHub-hosted standard runners, which have no GPU; any other label, group or expression may be one.
STANDARD_RUNNER = re.compile(r"^(ubuntu|windows|macos)-(latest|\d[\w.-]*)$")
MAINTAINERS = ROOT / ".github" / "MAINTAINERS.md"


def _triggers(data: dict) -> set[str]:
    on = data.get(True, data.get("on")) or {}  # YAML 1.1 reads a bare `on:` key as True
    return {on} if isinstance(on, str) else set(on)


def may_run_on_a_gpu(runs_on: object) -> bool:
    labels = [runs_on] if isinstance(runs_on, str) else runs_on
    if not isinstance(labels, list) or not labels:
        return True  # a runner group mapping, or nothing we can read: assume it may be the GPU runner
    return not all(isinstance(label, str) and STANDARD_RUNNER.match(label) for label in labels)


def gpu_jobs(name: str, workflows: dict[str, str], seen: tuple[str, ...] = ()) -> list[str]:
    """`workflow → job → …` for each job in this workflow (and the reusable workflows it calls) that may run
    on a GPU runner; a call to a workflow outside this repository counts, since its runner is unknown."""
    found = []
    for job_id, job in (yaml.safe_load(workflows[name]).get("jobs") or {}).items():
        where = f"{name} → job {job_id}"
        called = str(job.get("uses", ""))
        if called.startswith("./.github/workflows/"):
            target = called.removeprefix("./.github/workflows/")
            if target in seen or target not in workflows:
                found.append(f"{where} → {called} (missing or circular: cannot tell its runners)")
            else:
                found += [f"{where} → {path}" for path in gpu_jobs(target, workflows, (*seen, name))]
        elif called:
            found.append(f"{where} → {called} (a workflow outside this repository: cannot tell its runners)")
        elif may_run_on_a_gpu(job.get("runs-on")):
            found.append(f"{where} (runs-on: {job.get('runs-on')!r})")
    return found


def gpu_jobs_reachable_from_pull_requests(workflows: dict[str, str]) -> list[str]:
    """For each workflow a pull request's own definitions start, the jobs in it that may reach a GPU runner."""
    problems = []
    for name, text in sorted(workflows.items()):
        events = _triggers(yaml.safe_load(text)) & PR_DEFINED_EVENTS
        if events:
            problems += [f"{path}: reachable from {sorted(events)}" for path in gpu_jobs(name, workflows)]
    return problems


def _repository_workflows() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in WORKFLOWS}


def test_no_gpu_job_is_reachable_from_a_pull_request() -> None:
    problems = gpu_jobs_reachable_from_pull_requests(_repository_workflows())
    assert not problems, "move these jobs to a workflow pull requests cannot start (main.yml, gpu-pr.yml):\n" + (
        "\n".join(problems)
    )


def test_the_maintainers_checklist_admits_exactly_the_workflows_that_hold_gpu_jobs() -> None:
    workflows = _repository_workflows()
    holding = {name for name in workflows if gpu_jobs(name, workflows)}
    assert holding == {"main.yml", "gpu-pr.yml"}
    checklist = MAINTAINERS.read_text(encoding="utf-8")
    admitted = set(re.findall(r"`[\w.-]+/[\w.-]+/\.github/workflows/([\w.-]+\.yml)@refs/heads/main`", checklist))
    assert admitted == holding, f"{MAINTAINERS.relative_to(ROOT)}: the GPU runner group must admit {sorted(holding)}"


def test_the_cpu_lane_job_is_the_same_for_pull_requests_and_for_main() -> None:
    jobs = {name: yaml.safe_load(_repository_workflows()[name])["jobs"]["cpu"] for name in ("ci.yml", "main.yml")}
    assert jobs["ci.yml"] == jobs["main.yml"]


PLANTED = {
    # What ci.yml did before: a GPU job in a pull_request workflow, "protected" by an `if:` a fork can delete.
    "old-ci.yml": """
on:
  pull_request:
  push:
    branches: [main]
jobs:
  cpu:
    runs-on: ubuntu-24.04
  gpu:
    if: github.event_name != 'pull_request'
    runs-on: ${{ vars.GPU_RUNNER || 'linux-gpu-t4' }}
""",
    # A pull_request workflow that reaches a GPU job through a reusable workflow of this repository.
    "calls.yml": """
on: [push, pull_request]
jobs:
  lanes:
    uses: ./.github/workflows/gpu-lane.yml
""",
    "gpu-lane.yml": """
on: workflow_call
jobs:
  gpu:
    runs-on: [self-hosted, gpu]
""",
    # A pull request review starts the PR's own definitions too; a runner group is not a standard runner.
    "review.yml": """
on:
  pull_request_review:
    types: [submitted]
jobs:
  gpu:
    runs-on:
      group: gpu-runners
""",
    # Safe: started only from definitions on the default branch.
    "dispatch.yml": """
on:
  workflow_dispatch:
    inputs:
      sha: {required: true, type: string}
jobs:
  gpu:
    runs-on: linux-gpu-t4
""",
    # Safe: a pull_request workflow whose jobs all run on standard GitHub-hosted runners.
    "cpu-only.yml": """
on: pull_request
jobs:
  test:
    runs-on: ubuntu-24.04
  matrix:
    runs-on: [macos-15]
""",
}


def test_the_fork_safety_rule_catches_planted_gpu_jobs_and_passes_safe_ones() -> None:
    problems = gpu_jobs_reachable_from_pull_requests(PLANTED)
    assert problems == [
        "calls.yml → job lanes → gpu-lane.yml → job gpu (runs-on: ['self-hosted', 'gpu']): "
        "reachable from ['pull_request']",
        "old-ci.yml → job gpu (runs-on: \"${{ vars.GPU_RUNNER || 'linux-gpu-t4' }}\"): reachable from ['pull_request']",
        "review.yml → job gpu (runs-on: {'group': 'gpu-runners'}): reachable from ['pull_request_review']",
    ]
    # A call the rule cannot follow counts as a GPU job, never as a safe one.
    unknown = {"x.yml": "on: pull_request\njobs:\n  a:\n    uses: other/repo/.github/workflows/w.yml@v1\n"}
    assert "outside this repository" in gpu_jobs_reachable_from_pull_requests(unknown)[0]
    missing = {"x.yml": "on: pull_request\njobs:\n  a:\n    uses: ./.github/workflows/gone.yml\n"}
    assert "missing or circular" in gpu_jobs_reachable_from_pull_requests(missing)[0]
