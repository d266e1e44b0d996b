"""Find a Chromium for the browser tests: $CHROMIUM, a system Chromium/Chrome, else Playwright's own.

`python tests/browser/chromium.py` prints the path, or a one-line instruction and exits 1.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SYSTEM_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTRUCTION = (
    "No Chromium for the browser tests: `sudo apt-get install chromium` (Debian/Ubuntu), or without root "
    "`.venv/bin/playwright install chromium`, or set CHROMIUM=/path/to/chrome."
)


def find_chromium() -> str | None:
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in SYSTEM_BROWSERS:
        if found := shutil.which(name):
            return found
    return _playwright_chromium()


def _playwright_chromium() -> str | None:
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            path = playwright.chromium.executable_path
    except Exception:
        return None
    return path if Path(path).is_file() else None


if __name__ == "__main__":
    path = find_chromium()
    print(path or INSTRUCTION, file=sys.stdout if path else sys.stderr)
    sys.exit(0 if path else 1)
