"""Hook: under every included code block, what verified it, how to run it, and where its source lives.

    ✓ CPU · torch 2.14.1  ✓ GPU · torch 2.11.0 · NVIDIA H100 · Runs pasted at the `python` prompt
    · source + checks: snippets/tensors/anatomy/strides.py

In a build given no test report, the caption says "not verified in this build" instead: never a tick
that no test run earned. Under each page's title, one line sums up what verified the page.
The functions that edit Markdown are pure and unit-tested; `on_config`/`on_page_markdown` feed them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from page_fences import find_fences
from run_modes import CAPTIONS, declares_own_process, run_mode
from snippet_markup import Include, parse_include, read_sections, section_lines
from verification_reports import Report, Run, parse_report, runs_verifying

REPORTS_ENV = "VERIFICATION_REPORTS"  # a folder of *.json reports; default: .cache/verification
UNVERIFIED = "not verified in this build"


def add_captions(markdown: str, caption_for: Callable[[list[Include], list[Include]], str]) -> str:
    """Insert `caption_for(includes, before)` after each fence whose body is snippet includes; `before`
    holds the includes of the fences a `{.python continuation}` fence continues (it runs after them)."""
    captions: dict[int, str] = {}  # closing line number -> caption paragraph
    chain: list[Include] = []
    for fence in find_fences(markdown):
        includes = [include for _, text in fence.body if (include := parse_include(text))]
        before = chain if "continuation" in fence.info.strip("{}").split() else []
        if fence.info.lstrip("{.").startswith("py"):
            chain = [*before, *includes]
        if includes and fence.closing_line is not None:
            captions[fence.closing_line] = (
                f"\n{fence.indent}{caption_for(includes, before)}\n{fence.indent}{{ .snippet-source }}\n"
            )
    out = []
    for number, line in enumerate(markdown.split("\n"), start=1):
        out.append(line)
        if number in captions:
            out.append(captions[number])
    return "\n".join(out)


def common_runs(includes: list[Include], runs_for: Callable[[Include], list[Run]]) -> list[Run]:
    """The runs that verified every one of these includes."""
    return [run for run in runs_for(includes[0]) if all(run in runs_for(include) for include in includes[1:])]


def caption(includes: list[Include], runs: list[Run], url_for: Callable[[Include], str], mode: str = "") -> str:
    """Badges for the runs that verified the block, how to run it (run_modes.py), then links to its sources."""
    badges = " ".join(badge(run) for run in runs) or f'<span class="verified verified--none">{UNVERIFIED}</span>'
    how = f' · <span class="run-mode run-mode--{mode}">{CAPTIONS[mode]}</span>' if mode else ""
    return f"{badges}{how} · {source_links(includes, url_for)}"


def source_links(includes: list[Include], url_for: Callable[[Include], str]) -> str:
    """The sources, said in words (a tooltip is invisible on touch screens and to most keyboard users)."""
    files = " · ".join(f"[`{i.path}`]({url_for(i)})" for i in includes)
    return f"source + checks: {files}" if any(i.path.endswith(".py") for i in includes) else f"source: {files}"


def shown_code(includes: list[Include], text_of: Callable[[Include], str]) -> str:
    """The code a fence of these includes shows, each section dedented as pymdownx.snippets includes it."""
    parts = []
    for include in includes:
        text = text_of(include)
        parts += section_lines(text, include.section) if include.section else text.rstrip("\n").split("\n")
    return "\n".join(parts)


def block_run_mode(includes: list[Include], text_of: Callable[[Include], str]) -> str:
    """PASTE or FILE (hooks/run_modes.py) for a fence of these includes."""
    starts_processes = any(
        Path(i.path).stem.endswith(("_dist", "_dist_cuda")) or declares_own_process(text_of(i)) for i in includes
    )
    return run_mode(shown_code(includes, text_of), starts_processes)


def page_status(verified: dict[Run, int], total: int) -> str:
    """One line for the top of a page with `total` code blocks, `verified[run]` of them verified by `run`."""
    if not verified:
        return (
            '<p class="verification-status verification-status--none">Unverified build: no test report was '
            "given to this build, so nothing here claims to have run. The published site shows what verified "
            "each example.</p>"
        )
    parts = [f"{badge(run)} {count} of {total} code blocks ({run.date})" for run, count in verified.items()]
    return '<p class="verification-status">Verified: ' + " · ".join(parts) + "</p>"


def footer(copyright: str, reports: list[Report]) -> str:
    """The site's footer line: the claim that the examples ran only in a build given a test report."""
    if not reports:
        return f"{copyright} This build was given no test report: the published site shows what ran."
    return f"{copyright} Every example ran, on the runs its caption names."


def add_page_status(markdown: str, status: str) -> str:
    """Put `status` right under the page's first `# ` heading (or first, if it has none)."""
    lines = markdown.split("\n")
    heading = next((n for n, line in enumerate(lines) if line.startswith("# ")), -1)
    return "\n".join([*lines[: heading + 1], "", status, "", *lines[heading + 1 :]])


def badge(run: Run) -> str:
    return f'<span class="verified verified--{run.lane}" title="Passed on {run.date}">✓ {run.label}</span>'


# ---- Reading the repository (shared with hooks/drills.py and hooks/labs.py) ------------------------
def load_reports(root: Path) -> list[Report]:
    """The test reports: every *.json in $VERIFICATION_REPORTS, default `<root>/.cache/verification`."""
    folder = Path(os.environ.get(REPORTS_ENV) or root / ".cache" / "verification")
    return [parse_report(path.read_text(encoding="utf-8"), str(path)) for path in sorted(folder.glob("*.json"))]


def snippet_text(root: Path) -> Callable[[Include], str]:
    """include -> the current text of its file ("" when it is missing: the build reports that elsewhere)."""

    def text_of(include: Include) -> str:
        file = root / include.path
        return file.read_text(encoding="utf-8") if file.is_file() else ""

    return text_of


def source_url(source: dict, text_of: Callable[[Include], str]) -> Callable[[Include], str]:
    """include -> its file on GitHub (`extra.source`), anchored to the section's lines."""
    base = f"{source['repository'].rstrip('/')}/blob/{source['branch']}"

    def url_for(include: Include) -> str:
        section = read_sections(text_of(include))[0].get(include.section)
        return f"{base}/{include.path}" + (f"#L{section.first_line}-L{section.last_line}" if section else "")

    return url_for


# ---- MkDocs events -------------------------------------------------------------------------------
_reports: list[Report] = []


def on_config(config, **kwargs):
    _reports[:] = load_reports(Path(config.config_file_path).parent)
    config.copyright = footer(config.copyright or "", _reports)
    return config


def on_page_markdown(markdown, page, config, **kwargs):
    text_of = snippet_text(Path(config.config_file_path).parent)
    url_for = source_url(config.extra["source"], text_of)

    def runs_for(include: Include) -> list[Run]:
        return runs_verifying(_reports, include.path, text_of(include))

    blocks = 0
    verified: dict[Run, int] = {}

    def caption_for(includes: list[Include], before: list[Include]) -> str:
        nonlocal blocks
        if not any(include.path.endswith(".py") for include in includes):
            return source_links(includes, url_for)  # Markdown shown as an example: nothing to run
        blocks += 1
        runs = common_runs(includes, runs_for)
        for run in runs:
            verified[run] = verified.get(run, 0) + 1
        return caption(includes, runs, url_for, block_run_mode([*before, *includes], text_of))

    markdown = add_captions(markdown, caption_for)
    return add_page_status(markdown, page_status(verified, blocks)) if blocks else markdown
