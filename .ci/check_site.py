"""The built docs site stands alone: served over HTTP as a reader gets it, every link and anchor answers.

    python .ci/check_site.py SITE_DIR

Serves SITE_DIR on 127.0.0.1 and crawls it with LinkChecker (PyPI ``linkchecker``; .ci/run installs it) from its
home page, anchors included (its AnchorCheck plugin); exit status 1 on any broken link (a link to a file outside
the site is a 404 there). The server sends the ``LinkChecker`` header, which lets LinkChecker make more than 10
requests a second to it (without it the crawl of ~250 URLs takes 75 s, with it 25 s).
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

CONFIG = "[checking]\nmaxrequestspersecond=100\n[AnchorCheck]\n"


class Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("LinkChecker", "local")
        super().end_headers()

    def log_message(self, *args) -> None:
        pass


def main(site: str) -> int:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "linkcheckerrc"
        config.write_text(CONFIG)
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        checked = subprocess.run(
            [
                str(Path(sys.executable).with_name("linkchecker")),
                "--no-status",
                "--no-warnings",
                "-f",
                str(config),
                url,
            ],
            check=False,
        )
    server.shutdown()
    return checked.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
