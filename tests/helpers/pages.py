"""Reading what a browse or diff page carries: the JSON its script draws the cards from."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)


def page_data(page: str) -> dict:
    """{runs, images (data URIs), cards, page_size} of a page written by ``abductive-eval browse`` or ``diff``."""
    (found,) = DATA.findall(page)
    return json.loads(found)


CHROMIUM = Path("/usr/bin/chromium")
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
