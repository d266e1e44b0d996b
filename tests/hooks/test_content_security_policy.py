import base64
import hashlib
import re

import pytest
from content_security_policy import add_policy, attributes, inline_scripts, on_post_template, policy, script_hash
from mkdocs.exceptions import PluginError

PAGE = (
    '<!doctype html>\n<html><head>\n<meta charset="utf-8">\n'
    '<script>__md_scope=new URL("../..",location)</script>\n'
    '<script id="__config" type="application/json">{"base": "../.."}</script>\n'
    '<script src="../../assets/javascripts/bundle.js"></script>\n'
    "</head><body><script type=module>import('./x.js')</script><p>on = 1</p></body></html>"
)


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def content_of(html: str) -> str:
    return re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html).group(1)


def test_only_scripts_the_browser_runs_are_hashed():
    # a JSON data block and a script with src need no hash; a module does
    assert inline_scripts(PAGE) == ['__md_scope=new URL("../..",location)', "import('./x.js')"]


def test_the_policy_is_the_first_element_of_head_and_allows_exactly_the_pages_inline_scripts():
    html = add_policy(PAGE)
    assert html.startswith('<!doctype html>\n<html><head><meta http-equiv="Content-Security-Policy" content="')
    directives = dict(part.split(" ", 1) for part in content_of(html).split("; "))
    assert directives["script-src"] == " ".join(
        ["'self'", sha256('__md_scope=new URL("../..",location)'), sha256("import('./x.js')")]
    )
    assert directives == directives | {
        "default-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data:",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'none'",
        "worker-src": "'self'",
        "connect-src": "'self'",
        "font-src": "'none'",
    }
    assert "unsafe" not in content_of(html)
    assert html.replace(re.search(r"<meta http-equiv[^>]*>", html).group(0), "") == PAGE  # nothing else changed


def test_the_hash_follows_the_page_depth():
    deeper = PAGE.replace('"../.."', '"."')
    assert content_of(add_policy(deeper)) != content_of(add_policy(PAGE))


def test_the_hash_is_taken_over_the_text_as_the_parser_gives_it():
    # the HTML parser turns CR LF into LF before a script sees its own text
    assert script_hash("a\r\nb\rc") == sha256("a\nb\nc")
    assert script_hash("é") == sha256("é")  # UTF-8


def test_the_same_script_twice_is_listed_once_and_a_page_without_inline_scripts_gets_self_only():
    assert policy([sha256("x"), sha256("x")]).count("sha256-") == 1
    assert "script-src 'self';" in policy([])


def test_attributes_parse_quoted_bare_and_empty_values():
    assert attributes(" id=\"a b\" type=module defer data-x='1'") == {
        "id": "a b",
        "type": "module",
        "defer": "",
        "data-x": "1",
    }


@pytest.mark.parametrize(
    ("markup", "message"),
    [
        ('<button onclick="go()">x</button>', "an inline event handler `onclick`"),
        ('<meta name="description" content="marked "I can answer this", kept only here">', "`only`"),
        ('<a href=" JavaScript:alert(1)">x</a>', "a javascript: URL"),
        ('<span style="color: red">x</span>', "a style attribute"),
        ('<span class="n" onclick="go()">x</span>', "an inline event handler `onclick`"),  # a class and more
        ('<span class="n"style="color: red">x</span>', "a style attribute"),
        ("<style>p { color: red }</style>", "a <style> element"),
        ('<meta http-equiv="content-security-policy" content="default-src *">', "already"),
    ],
)
def test_markup_the_policy_would_silently_break_fails_naming_the_page(markup: str, message: str):
    with pytest.raises(ValueError, match=r"^tensors/anatomy\.md: the Content-Security-Policy would break ") as error:
        add_policy(PAGE.replace("<p>on = 1</p>", markup), "tensors/anatomy.md")
    assert message in str(error.value)


def test_text_that_only_looks_like_markup_is_fine():
    escaped = '<pre><code>&lt;a onclick="x" style="y"&gt;</code></pre><script>var s = "<b onclick=1>";</script>'
    assert "Content-Security-Policy" in add_policy(PAGE.replace("<p>on = 1</p>", escaped))


def test_a_page_without_head_fails():
    with pytest.raises(ValueError, match="404.html: no <head>"):
        add_policy("<p>hi</p>", "404.html")


def test_the_charset_must_stay_within_the_first_1024_bytes():
    many = "".join(f"<script>var a{i} = {i};</script>" for i in range(20))
    with pytest.raises(ValueError, match="past the first 1024 bytes"):
        add_policy(PAGE.replace("</head>", many + "</head>"))


def test_the_404_template_gets_a_policy_and_the_sitemap_does_not():
    assert "Content-Security-Policy" in on_post_template(PAGE, "404.html", None)
    assert on_post_template("<urlset/>", "sitemap.xml", None) == "<urlset/>"
    with pytest.raises(PluginError, match="404.html: no <head>"):
        on_post_template("<p>hi</p>", "404.html", None)
