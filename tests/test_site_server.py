"""tests/plugin/site_server.py: the run's one web server for the site build."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.plugin.site_server import free_port, serve


@pytest.fixture
def server(tmp_path):
    (tmp_path / "404.html").write_text("<h1>404</h1>")
    (tmp_path / "index.html").write_text("<h1>home</h1>")
    running = serve(tmp_path, free_port())
    yield running
    running.shutdown()
    running.server_close()


def test_a_missing_path_gets_the_sites_404_page(server) -> None:
    port = server.server_address[1]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as answer:
        assert answer.read() == b"<h1>home</h1>"
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico")
    assert missing.value.code == 404 and missing.value.read() == b"<h1>404</h1>"


LEFT_EARLY = [(BrokenPipeError, False), (ConnectionResetError, False), (OSError, True)]


@pytest.mark.parametrize(("error", "printed"), LEFT_EARLY)
def test_only_a_client_that_left_early_is_not_reported(server, capsys, error, printed: bool) -> None:
    try:
        raise error("while answering")
    except OSError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert ("while answering" in capsys.readouterr().err) is printed
