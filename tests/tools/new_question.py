"""`make new-question PAGE=tensors/anatomy NAME=pinned_memory Q=15 TITLE="What does pin_memory buy you?"`

Appends a question to an existing page — heading, answer-first lead, a fence including the new
snippet, both panels — and creates `snippets/<page>/<NAME>.py` from the snippet template. The result
already passes the contract and the tests; then replace the placeholder claim with the real one.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = '''"""Q{number}: {title} — say here what this snippet proves."""

# --8<-- [start:demo]
import torch

x = torch.arange(6).reshape(2, 3)
print(x.shape)
# > torch.Size([2, 3])
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert x.shape == (2, 3)  # replace with checks that prove what the page claims


if __name__ == "__main__":
    _check()
'''

QUESTION = """
## Q{number} · {title}

**Answer first.** What you would say in the first thirty seconds.

The depth an interviewer probes for, and what changed if the common answer is outdated.

```python
--8<-- "{snippet}:demo"
```

??? success "What a strong answer covers"
    - The points that show understanding rather than recall.

??? failure "Where people lose the point"
    - The mistakes that cost candidates this question.

**Likely follow-ups.** The questions an interviewer asks next, each with a one-line answer.
"""


def new_question(root: Path, page: str, name: str, number: int, title: str) -> tuple[Path, Path]:
    """Create the snippet and append the question; refuse anything that would break the contract."""
    page_file = root / "docs" / f"{page}.md"
    snippet_file = root / "snippets" / page / f"{name}.py"
    if not page_file.is_file():
        raise SystemExit(f"docs/{page}.md does not exist: PAGE is a page path without .md, e.g. tensors/anatomy")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise SystemExit(f"NAME={name!r}: snippet names are snake_case, e.g. pinned_memory")
    if snippet_file.exists():
        raise SystemExit(f"{snippet_file.relative_to(root)} already exists: pick another NAME")
    if re.search(rf"^## Q{number}\b", page_file.read_text(encoding="utf-8"), re.MULTILINE):
        raise SystemExit(f"docs/{page}.md already has a Q{number}")
    snippet_file.parent.mkdir(parents=True, exist_ok=True)
    snippet_file.write_text(SNIPPET.format(number=number, title=title), encoding="utf-8")
    snippet = snippet_file.relative_to(root).as_posix()
    with page_file.open("a", encoding="utf-8") as page_text:
        page_text.write(QUESTION.format(number=number, title=title, snippet=snippet))
    return page_file, snippet_file


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--page", required=True, help="page path without .md, e.g. tensors/anatomy")
    parser.add_argument("--name", required=True, help="snippet file name, snake_case, without .py")
    parser.add_argument("--number", required=True, type=int, help="the question's global number (Q1-Q200 today)")
    parser.add_argument("--title", required=True, help="the question, as an interviewer asks it")
    args = parser.parse_args(argv)
    page_file, snippet_file = new_question(ROOT, args.page, args.name, args.number, args.title)
    print(f"added Q{args.number} to {page_file.relative_to(ROOT)} and created {snippet_file.relative_to(ROOT)}")
    print(f"next: edit both, run `python {snippet_file.relative_to(ROOT)}`, then `make test`")


if __name__ == "__main__":
    main(sys.argv[1:])
