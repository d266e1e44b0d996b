from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from storage_guard import add_guard, on_post_page, on_post_template

HEAD = (
    '<head><meta charset="utf-8"><script>var a = 1 < 2</script><script>__md_scope=new URL("../..",location),'
    "__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),"
    '__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e))</script>'
    '<link rel="stylesheet" href="x.css"></head>'
)


def test_the_guard_loads_right_after_materials_definition_of_md_get():
    html = add_guard(HEAD, "../../javascripts/storage-guard.js")
    definition_end = HEAD.index("</script>", HEAD.index("__md_get=")) + len("</script>")
    guard = '<script src="../../javascripts/storage-guard.js"></script>'
    assert html == HEAD[:definition_end] + guard + HEAD[definition_end:]


def test_pages_get_a_relative_src_and_the_404_page_an_absolute_one():
    page = SimpleNamespace(url="tensors/anatomy/", file=SimpleNamespace(src_uri="tensors/anatomy.md"))
    assert '<script src="../../javascripts/storage-guard.js">' in on_post_page(HEAD, page, None)
    site = SimpleNamespace(site_url="https://example.org/guide/")
    assert '<script src="/guide/javascripts/storage-guard.js">' in on_post_template(HEAD, "404.html", site)
    assert on_post_template("<urlset/>", "sitemap.xml", site) == "<urlset/>"


def test_a_page_without_materials_definition_fails_loudly():
    with pytest.raises(ValueError, match=r"^tags\.md: Material's __md_get definition was not found"):
        add_guard("<head></head>", "x.js", "tags.md")
    page = SimpleNamespace(url="", file=SimpleNamespace(src_uri="index.md"))
    with pytest.raises(PluginError, match="index.md"):
        on_post_page("<head></head>", page, None)
