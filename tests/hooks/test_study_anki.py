"""The Anki package: a zip holding an SQLite collection; what Anki matches notes on is the same every build."""

import sqlite3
import zipfile

from study_anki import FIELDS, PARENT_DECK, stable_id, write_deck
from study_cards import Card

CARDS = [
    Card("tensors/#rapid-fire/abc", "flashcard", "Tensors", "Tensors", "tensors/#rapid-fire", ("tensors",),
         "<p>Front</p>", "<p>Back</p>"),
    Card("tensors/anatomy/#q1-x", "question", "Tensors", "Tensor anatomy", "tensors/anatomy/#q1-x",
         ("tensors", "easy"), "Q1 · X?", "<strong>Y.</strong>", ("covers one", "covers two"), ("lose one",)),
    Card("autograd/graph/#q20-y", "question", "Autograd", "The graph", "autograd/graph/#q20-y", ("autograd",),
         "Q20 · Y?", "Z.", ("c",), ("m",)),
]  # fmt: skip


def read_package(path):
    with zipfile.ZipFile(path) as package:
        assert "collection.anki2" in package.namelist()
        target = path.parent / (path.stem + ".anki2")
        target.write_bytes(package.read("collection.anki2"))
    with sqlite3.connect(target) as db:
        notes = db.execute("SELECT guid, mid, flds FROM notes ORDER BY guid").fetchall()
        cards = db.execute("SELECT nid, did FROM cards").fetchall()
        decks = db.execute("SELECT decks, models FROM col").fetchone()
    return notes, cards, decks


def test_every_card_is_a_note_with_its_fields_in_its_modules_deck(tmp_path):
    write_deck(CARDS, ["Tensors", "Autograd"], "https://example.org/guide", tmp_path / "deck.apkg")
    notes, cards, (decks, models) = read_package(tmp_path / "deck.apkg")
    assert len(notes) == len(cards) == 3
    fields = {flds.split("\x1f")[3]: flds.split("\x1f") for _, _, flds in notes}
    front, back, link, card_id = fields["tensors/anatomy/#q1-x"]
    assert (front, card_id) == ("Q1 · X?", "tensors/anatomy/#q1-x")
    covers = "<p><strong>What a strong answer covers</strong></p><ul><li>covers one</li><li>covers two</li></ul>"
    assert back == "<strong>Y.</strong>" + covers
    assert link == '<a href="https://example.org/guide/tensors/anatomy/#q1-x">Tensor anatomy on the site</a>'
    assert fields["tensors/#rapid-fire/abc"][1] == "<p>Back</p>"  # a flashcard: no panel
    assert str(stable_id("Verified PyTorch Interview Prep card")) in models and '"Front"' in models
    assert all(f'"name": "{FIELDS[i]}"' in models or f'"name":"{FIELDS[i]}"' in models for i in range(4))
    for name in (PARENT_DECK, f"{PARENT_DECK}::Tensors", f"{PARENT_DECK}::Autograd"):
        assert str(stable_id(name)) in decks and name in decks
    modules = {stable_id(f"{PARENT_DECK}::Tensors"), stable_id(f"{PARENT_DECK}::Autograd")}
    assert {did for _, did in cards} == modules  # the module decks hold the cards; the parent holds none


def test_what_anki_matches_on_is_the_same_in_two_builds(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_deck(CARDS, ["Tensors", "Autograd"], "https://example.org/", tmp_path / "a" / "deck.apkg")
    write_deck(list(reversed(CARDS)), ["Tensors", "Autograd"], "https://example.org/", tmp_path / "b" / "deck.apkg")
    first, _, (decks_a, models_a) = read_package(tmp_path / "a" / "deck.apkg")
    second, _, (decks_b, models_b) = read_package(tmp_path / "b" / "deck.apkg")
    assert [(guid, mid) for guid, mid, _ in first] == [(guid, mid) for guid, mid, _ in second]
    assert {flds for *_, flds in first} == {flds for *_, flds in second}


def test_stable_ids_depend_on_the_name_only():
    assert stable_id("x") == stable_id("x") != stable_id("y")
    assert 2**30 <= stable_id("x") < 2**31
