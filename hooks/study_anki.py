"""The Anki deck: every card of study/cards.json (hooks/study_cards.py) as an `.apkg`, written with genanki.

One deck per module under one parent deck ("Verified PyTorch Interview Prep::Tensors"). Front: the
question; back: the answer first, the bullets of "What a strong answer covers" and a link to the page.
Every id Anki matches on is derived from names, never from the build: the note type and decks from a
hash of their names, each note's guid from the card's stable id, so importing a newer deck updates the
notes already imported instead of adding duplicates. (Anki's own note and card row ids are timestamps,
as genanki writes them; Anki ignores them on import and matches notes by guid.)
"""

from __future__ import annotations

import hashlib
from html import escape
from pathlib import Path

PARENT_DECK = "Verified PyTorch Interview Prep"
MODEL_NAME = "Verified PyTorch Interview Prep card"
FIELDS = ["Front", "Back", "Link", "Id"]
CSS = ".card { font-family: sans-serif; font-size: 18px; text-align: left; } code { font-size: 90%; }"


def stable_id(name: str) -> int:
    """A positive 31-bit id from `name`: the same on every build and machine (Anki's ids are int64)."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) >> 1 | 1 << 30


def back_html(card) -> str:
    covers = "".join(f"<li>{bullet}</li>" for bullet in card.covers)
    panel = f"<p><strong>What a strong answer covers</strong></p><ul>{covers}</ul>" if covers else ""
    return card.back + panel


def page_link(card, site_url: str) -> str:
    base = site_url if site_url.endswith("/") else site_url + "/"
    return f'<a href="{escape(base + card.url)}">{escape(card.page)} on the site</a>'


def build_package(cards, modules: list[str], site_url: str):
    import genanki

    model = genanki.Model(
        stable_id(MODEL_NAME),
        MODEL_NAME,
        fields=[{"name": name} for name in FIELDS],
        templates=[
            {
                "name": "Question",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<p>{{Link}}</p>',
            }
        ],
        css=CSS,
    )
    decks = {PARENT_DECK: genanki.Deck(stable_id(PARENT_DECK), PARENT_DECK)}
    for module in modules:
        name = f"{PARENT_DECK}::{module}"
        decks[module] = genanki.Deck(stable_id(name), name)
    for card in cards:
        note = genanki.Note(
            model=model,
            fields=[card.front, back_html(card), page_link(card, site_url), card.id],
            guid=genanki.guid_for(card.id),
            tags=[tag.replace(" ", "_") for tag in card.tags],
        )
        decks[card.module].add_note(note)
    return genanki.Package(list(decks.values()))


def write_deck(cards, modules: list[str], site_url: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    build_package(cards, modules, site_url).write_to_file(str(path))
