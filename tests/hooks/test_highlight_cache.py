import json
from types import SimpleNamespace

import drill_render
import highlight_cache
import pymdownx.highlight
from highlight_cache import HighlightCache, call_key, on_config, on_post_build
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

CODE = "x = torch.ones(2)\nprint(x.sum())\n"


def counting(calls: list[str]):
    def fake_highlight(code, lexer, formatter, outfile=None):
        calls.append(code)
        return highlight(code, lexer, formatter, outfile)

    return fake_highlight


def test_a_hit_returns_what_pygments_writes_without_calling_it(tmp_path):
    calls: list[str] = []
    path = tmp_path / "pygments.json"
    first = HighlightCache(path).wrap(counting(calls))
    expected = highlight(CODE, PythonLexer(), HtmlFormatter(hl_lines=[2]))
    assert first(CODE, PythonLexer(), HtmlFormatter(hl_lines=[2])) == expected
    assert first(CODE, PythonLexer(), HtmlFormatter(hl_lines=[2])) == expected
    assert calls == [CODE]  # the same build asked twice: highlighted once
    assert HighlightCache(path).saved == {}  # nothing saved until the build ends


def test_the_next_build_reads_what_this_one_saved(tmp_path):
    path, calls = tmp_path / "pygments.json", []
    cache = HighlightCache(path)
    cache.wrap(counting(calls))(CODE, PythonLexer(), HtmlFormatter())
    assert cache.save() is True
    assert cache.save() is False  # unchanged: not written again
    again = HighlightCache(path)
    assert again.wrap(counting(calls))(CODE, PythonLexer(), HtmlFormatter()) == highlight(
        CODE, PythonLexer(), HtmlFormatter()
    )
    assert calls == [CODE]
    assert again.save() is False  # the same entries: the file stays as it was


def test_every_option_that_changes_the_html_changes_the_key():
    plain = call_key(CODE, PythonLexer(), HtmlFormatter())
    assert plain == call_key(CODE, PythonLexer(), HtmlFormatter())
    others = {
        call_key(CODE + "y = 1\n", PythonLexer(), HtmlFormatter()),
        call_key(CODE, PythonLexer(stripnl=False), HtmlFormatter()),
        call_key(CODE, PythonLexer(), HtmlFormatter(hl_lines=[1])),
        call_key(CODE, PythonLexer(), HtmlFormatter(linenos="table")),
        call_key(CODE, PythonLexer(), HtmlFormatter(nowrap=True)),
        call_key(CODE, PythonLexer(), pymdownx.highlight.BlockHtmlFormatter()),
    }
    assert plain not in others and len(others) == 6


def test_an_option_without_a_stable_text_form_is_highlighted_every_time(tmp_path):
    class Style:  # an object whose repr names its address
        pass

    calls: list[str] = []
    formatter = HtmlFormatter(title=Style())
    assert call_key(CODE, PythonLexer(), formatter) is None
    filtered = PythonLexer()
    filtered.add_filter("keywordcase", case="upper")  # a filter object: not keyed either
    assert call_key(CODE, filtered, HtmlFormatter()) is None
    cached = HighlightCache(tmp_path / "pygments.json").wrap(counting(calls))
    cached(CODE, PythonLexer(), formatter)
    cached(CODE, PythonLexer(), formatter)
    assert calls == [CODE, CODE]


def test_a_build_keeps_only_what_it_used_and_a_broken_file_is_made_again(tmp_path):
    path = tmp_path / "pygments.json"
    path.write_text(json.dumps({"stale": "<span>old</span>"}))
    cache = HighlightCache(path)
    cache.wrap(highlight)(CODE, PythonLexer(), HtmlFormatter())
    cache.save()
    saved = json.loads(path.read_text())
    assert list(saved) == [call_key(CODE, PythonLexer(), HtmlFormatter())]
    for broken in ("{not json", json.dumps(["a list"]), json.dumps({"key": 1})):
        path.write_text(broken)
        assert HighlightCache(path).saved == {}
    assert list(tmp_path.iterdir()) == [path]  # no partial file left behind


def test_the_hook_wraps_pygments_once_for_pymdownx_and_the_drills(tmp_path, monkeypatch):
    for module in highlight_cache.CALLERS:
        monkeypatch.setattr(module, "highlight", highlight)
    monkeypatch.setattr(highlight_cache, "_cache", None)
    config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"))
    on_config(config)
    on_config(config)  # `mkdocs serve` loads the config again on every rebuild
    assert {module.highlight.__wrapped__ for module in (pymdownx.highlight, drill_render)} == {highlight}
    shown = highlight("x = 1\ny = 2", PythonLexer(stripnl=False, ensurenl=True), HtmlFormatter(nowrap=True))
    assert drill_render.highlighted_lines(["x = 1", "y = 2"]) == shown.split("\n")[:2]
    on_post_build(config)
    assert (tmp_path / highlight_cache.CACHE).is_file()
