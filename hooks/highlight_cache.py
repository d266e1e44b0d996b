"""Hook: Pygments' output kept between builds, so a warm build highlights only code that changed.

Highlighting the guide's code blocks and drill listings was the largest single share of a warm build
(docs/benchmarks.md). Pygments' HTML is a function of the source, the lexer and the formatter with
their options, and the Pygments and pymdownx versions; `HighlightCache` keys each call on exactly
that, and calls through whenever an option has no stable text form (an object's default repr), so a
hit returns what Pygments would have written.

- on_config: the `highlight` that pymdownx.highlight and hooks/drill_render.py call becomes the
  cached one (wrapping the original once, however often `mkdocs serve` reloads the config).
- on_post_build: `.cache/highlight/pygments.json` is rewritten with the entries this build used,
  only when that set changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import drill_render
import pygments
import pymdownx
import pymdownx.highlight

CACHE = Path(".cache") / "highlight" / "pygments.json"  # under the repository root
CALLERS = [pymdownx.highlight, drill_render]  # the modules whose `highlight` (Pygments') is cached
_UNSTABLE = re.compile(r" at 0x[0-9a-f]+>")  # an object's default repr: differs between runs
VERSIONS = f"pygments {pygments.__version__} pymdownx {pymdownx.__version__}"

Highlight = Callable[..., str]


def call_key(source: str, lexer, formatter) -> str | None:
    """What Pygments' output depends on, digested; None when some part has no stable text form."""
    parts = [VERSIONS, source]
    for part in (lexer, formatter):
        kind = type(part)
        options = repr(sorted(getattr(part, "options", {}).items()))
        parts += [f"{kind.__module__}.{kind.__qualname__}", options, repr(getattr(part, "filters", []))]
    text = "\0".join(parts)
    return None if _UNSTABLE.search(text) else hashlib.sha256(text.encode()).hexdigest()


class HighlightCache:
    """Pygments' `highlight(code, lexer, formatter)` answered from a file of earlier results."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved = self._read(path)
        self.used: dict[str, str] = {}

    @staticmethod
    def _read(path: Path) -> dict[str, str]:
        """The saved entries; none when the file is missing or unreadable (a cache: it is made again)."""
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        ok = isinstance(entries, dict) and all(isinstance(value, str) for value in entries.values())
        return entries if ok else {}

    def wrap(self, highlight: Highlight) -> Highlight:
        original = getattr(highlight, "__wrapped__", highlight)

        def cached(code: str, lexer, formatter, outfile=None) -> str:
            key = None if outfile is not None else call_key(code, lexer, formatter)
            if key is None:
                return original(code, lexer, formatter, outfile)
            if key not in self.used:
                self.used[key] = self.saved[key] if key in self.saved else original(code, lexer, formatter)
            return self.used[key]

        cached.__wrapped__ = original
        return cached

    def save(self) -> bool:
        """Keep what this build used (and nothing else); whether the file was written."""
        if self.used == self.saved:
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(self.used, sort_keys=True), encoding="utf-8")
        partial.replace(self.path)  # a build killed midway leaves the previous file whole
        self.saved = dict(self.used)
        return True


_cache: HighlightCache | None = None


def on_config(config):
    global _cache
    _cache = HighlightCache(Path(config.config_file_path).parent / CACHE)
    for module in CALLERS:
        module.highlight = _cache.wrap(module.highlight)
    return config


def on_post_build(config) -> None:
    if _cache is not None:
        _cache.save()
