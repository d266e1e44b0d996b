"""The study data in the built site: study/cards.json and the Anki deck hold every question and flashcard
of every module the build finds (counted here from the Markdown, independently of hooks/study_cards.py),
the deck is a zip with an SQLite collection, and the study pages' machinery stays out of search."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile

import yaml

from tests.conftest import Build
from tests.snippet_files import ROOT

DOCS = ROOT / "docs"


def module_pages() -> dict[str, list[str]]:
    """Module title -> the Markdown files of its nav section, for every section opening with `<chapter>/index.md`."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !ENV, !relative, !!python/name
    nav = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)["nav"]
    found = {}
    for entry in nav:
        ((title, children),) = entry.items()
        pages = [c if isinstance(c, str) else next(iter(c.values())) for c in children or []]
        pages = [p for p in pages if isinstance(p, str) and p.endswith(".md")] if isinstance(children, list) else []
        if pages and re.fullmatch(r"[^/]+/index\.md", pages[0]):
            found[title] = pages
    return found


def expected_counts() -> dict[str, int]:
    counts = {}
    for module, pages in module_pages().items():
        text = "\n".join((DOCS / page).read_text(encoding="utf-8") for page in pages)
        questions = len(re.findall(r"^## Q\d+ ", text, re.M))
        flashcards = len(re.findall(r"^//// card \|", text, re.M))
        counts[module] = questions + flashcards
    return counts


def test_cards_json_holds_every_question_and_flashcard_of_every_module(built_site: Build) -> None:
    data = json.loads((built_site.site / "study" / "cards.json").read_text(encoding="utf-8"))
    expected = expected_counts()
    assert data["version"] == 1 and data["modules"] == list(expected)
    by_module = {module: sum(card["module"] == module for card in data["cards"]) for module in expected}
    assert by_module == expected
    ids = [card["id"] for card in data["cards"]]
    assert len(set(ids)) == len(ids)
    for card in data["cards"]:
        assert card["front"] and card["back"], card["id"]
        if card["kind"] == "question":
            assert card["covers"] and card["misses"], card["id"]  # both panels, bullet by bullet


def test_the_anki_deck_has_one_note_per_card_in_its_modules_deck(built_site: Build, tmp_path) -> None:
    data = json.loads((built_site.site / "study" / "cards.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(built_site.site / "study" / "verified-pytorch-interview-prep.apkg") as package:
        (tmp_path / "c.anki2").write_bytes(package.read("collection.anki2"))
    with sqlite3.connect(tmp_path / "c.anki2") as db:
        notes = db.execute("SELECT flds FROM notes").fetchall()
        cards = db.execute("SELECT count(*) FROM cards").fetchone()[0]
        decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
    assert len(notes) == cards == len(data["cards"])
    fields = [flds.split("\x1f") for (flds,) in notes]
    assert {f[3] for f in fields} == {card["id"] for card in data["cards"]}
    assert all(f[2].startswith(f'<a href="{built_site.url}') for f in fields)  # a link to the page
    names = {deck["name"] for deck in decks.values()}
    assert {f"Verified PyTorch Interview Prep::{m}" for m in data["modules"]} <= names


def test_the_study_machinery_stays_out_of_the_search_index(built_site: Build) -> None:
    index = json.loads((built_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = [doc["location"] for doc in index["docs"]]
    assert not [loc for loc in locations if loc.startswith("study/")]
    text = json.dumps(index)
    for machinery in ("Expand all panels", "Study offline", "Anki deck of every", "verified-pytorch-interview-prep"):
        assert machinery not in text
    # the toolbar's "Quiz me" on every question page: only the home page's prose names it
    assert {doc["location"].split("#")[0] for doc in index["docs"] if "Quiz me" in doc["text"]} == {""}
