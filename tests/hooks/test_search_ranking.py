import json
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from search_ranking import INTRO_BOOST, on_post_build, rank_index, word_variants

FIELDS = {
    "title": {"boost": 1000},
    "text": {"boost": 1},
    "title_variants": {"boost": 100},
    "text_variants": {"boost": 1},
}


def index(*docs, fields=FIELDS) -> str:
    return json.dumps({"config": {"separator": "x", "fields": fields}, "docs": list(docs)})


def test_camel_case_words_are_joined_and_snake_case_words_split():
    text = "Use <code>torch.amp.GradScaler</code> with GradScaler, BatchNorm2d and zero_grad, not PyTorch 2.x."
    assert word_variants(text) == ["gradscaler", "batchnorm2d", "zero", "grad", "pytorch"]
    assert word_variants("plain words, __init__ and NaN") == []  # nothing the separator splits or keeps whole


def test_each_entry_gets_its_variants_and_intros_weigh_less():
    docs = json.loads(
        rank_index(
            index(
                {"location": "p/", "title": "Mixed precision", "text": "<p>GradScaler scales.</p>"},
                {"location": "p/#q1", "title": "Q1 · Where can zero_grad() go?", "text": "plain"},
            )
        )
    )["docs"]
    intro, question = docs
    assert intro["text_variants"] == "gradscaler" and "title_variants" not in intro
    assert intro["boost"] == INTRO_BOOST and "boost" not in question
    assert question["title_variants"] == "zero grad" and "text_variants" not in question


def test_a_boost_from_front_matter_is_kept():
    (doc,) = json.loads(rank_index(index({"location": "p/", "title": "T", "text": "", "boost": 2})))["docs"]
    assert doc["boost"] == 2


def test_an_index_without_the_fields_or_not_materials_fails_naming_the_file():
    with pytest.raises(ValueError, match=r"x\.json: the fields \['title_variants', 'text_variants'\] are not in"):
        rank_index(index(fields={"title": {}}), "x.json")
    with pytest.raises(ValueError, match=r"x\.json: not Material's search index"):
        rank_index("[]", "x.json")


def test_the_hook_rewrites_the_built_index_in_place(tmp_path):
    target = tmp_path / "search" / "search_index.json"
    target.parent.mkdir()
    target.write_text(index({"location": "p/", "title": "T", "text": "LayerNorm"}))
    on_post_build(SimpleNamespace(site_dir=str(tmp_path)))
    assert json.loads(target.read_text())["docs"][0]["text_variants"] == "layernorm"
    target.write_text("{}")
    with pytest.raises(PluginError, match="not Material's search index"):
        on_post_build(SimpleNamespace(site_dir=str(tmp_path)))
