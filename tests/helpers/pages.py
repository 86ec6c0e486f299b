"""Reading what a browse or diff page carries: the JSON its script draws the cards from."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)


def page_data(page: str) -> dict:
    """{runs, images (data URIs), cards, page_size} of a page written by ``abductive-eval browse`` or ``diff``."""
    (found,) = DATA.findall(page)
    return json.loads(found)


# Where a headless Chromium may be: Debian's package (chromium), GitHub's runner images (google-chrome), Ubuntu's
# chromium-browser last (on 24.04 a stub for the snap, which CI jobs commonly cannot run).
BROWSERS = ("chromium", "google-chrome", "google-chrome-stable", "chromium-browser")
MISSING = (
    "headless-browser test: no chromium, google-chrome or chromium-browser on PATH and no CHROME variable "
    "(apt-get install -y chromium, or CHROME=/path/to/chrome)"
)


def find_browser(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The browser the tests drive: ``$CHROME`` when it names one, else the first of :data:`BROWSERS` on ``PATH``."""
    named = environ.get("CHROME", "").strip()
    if named:
        found = shutil.which(named, path=environ.get("PATH"))
        return Path(found) if found else None
    return next((Path(found) for name in BROWSERS if (found := shutil.which(name, path=environ.get("PATH")))), None)


CHROMIUM = find_browser()
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
)


def chromium_dom(url: str, profile: Path) -> str:
    """The DOM headless Chromium holds once ``url`` has loaded (its scripts run)."""
    completed = subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout
