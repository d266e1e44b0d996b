"""One local web server for the run's site build, which the browser tests load pages from.

- Without pytest-xdist, the browser tests' session serves the build itself (`serve`, from the
  `site_url` fixture in tests/browser/conftest.py).
- Under pytest-xdist, the controller serves it for the whole run: before the workers start, it picks
  a free port, serves the run's shared build folder there and tells the workers the address
  (`SERVED_AT`); they build the site for that address (tests/conftest.py) and only load pages. A
  server in each worker, sharing the port, reset a connection whenever the worker that finished
  first closed its half while the other still loaded pages.

The port must be the build's own: Material's instant navigation only intercepts links to the origin
its sitemap names.
"""

from __future__ import annotations

import functools
import http.server
import os
import socket
import sys
import threading
from pathlib import Path

import pytest

SERVED_AT = "SITE_BUILD_SERVED_AT"  # environment: the address the controller serves the shared build at
SHARED_BUILD = "site"  # the shared build's folder, in the run's common temporary folder


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site as GitHub Pages does: a missing path gets the site's own 404.html."""

    def log_message(self, *args) -> None:
        pass

    def send_error(self, code, message=None, explain=None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A browser that left before its answer was written (a tab closed while its favicon was on the
        way) is no error of the site's: only other errors are printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(directory: Path, port: int) -> http.server.ThreadingHTTPServer:
    """Serve `directory` (which may not exist yet: each request reads it as it is) on `port`, in a thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


_SERVER = pytest.StashKey[http.server.ThreadingHTTPServer]()


@pytest.hookimpl(optionalhook=True)  # optional: the GPU lane's environment has no xdist
def pytest_xdist_setupnodes(config: pytest.Config, specs) -> None:
    """In the controller, before it starts the workers."""
    # The workers' temporary folders are made inside the controller's (as pytest-xdist does, through the
    # same attribute), so this is the folder they share: tests/conftest.py builds the site into it.
    shared = config._tmp_path_factory.getbasetemp()
    port = free_port()
    config.stash[_SERVER] = serve(shared / SHARED_BUILD, port)
    os.environ[SERVED_AT] = f"http://127.0.0.1:{port}/"  # the workers start after this, with it


def pytest_unconfigure(config: pytest.Config) -> None:
    if server := config.stash.get(_SERVER, None):
        server.shutdown()
        server.server_close()
        os.environ.pop(SERVED_AT, None)
