"""Markdown extension: the drill blocks (spot-the-bug, step-through, match, flashcards), as pymdownx Blocks.

Each Block turns its drill into static HTML; docs/javascripts/drills.js makes it interactive. The syntax
is read the same way as the build check reads it (hooks/drill_syntax.py): authors write options flush
left under the opener, and a preprocessor indents them into the form pymdownx Blocks reads as YAML
options. Pages are checked before they are rendered (hooks/code_from_snippets.py names page and line);
anything invalid that still reaches a Block raises DrillError instead of rendering as plain text.

Registered by hooks/drills.py (`on_config`), which passes `base_path` (the repository root, where
snippet paths start) and `caption` (the Markdown caption under a drill's code: what verified it and a
link to its source, made by hooks/code_captions.py's functions so it matches every other block).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from html import unescape
from pathlib import Path

from drill_render import code_block, drill_id, graph_svg, line_choices
from drill_syntax import indent_options, split_match_item
from markdown.preprocessors import Preprocessor
from markdown.util import HTML_PLACEHOLDER
from pymdownx.blocks import BlocksExtension
from pymdownx.blocks.block import Block, type_any, type_string
from snippet_markup import Include, parse_target, section_lines

_STASHED = re.compile(HTML_PLACEHOLDER % r"(\d+)")  # where Python-Markdown left stashed HTML
_TAG = re.compile(r"<[^>]+>")
_COUNT = {2: "two", 3: "three", 4: "four"}
_UNSEARCHED = {"data-search-exclude": ""}  # controls and prompts: Material's search index skips them


class DrillError(ValueError):
    """A drill that the build check should have refused reached the renderer."""


@dataclass(frozen=True)
class Shown:
    include: Include
    lines: list[str]


class _Loud(Block):
    """A Block that raises on a bad title or option instead of silently rendering as text."""

    ARGUMENT = True

    def _validate(self, parent, arg, **options):
        if super()._validate(parent, arg, **options):
            return True
        raise DrillError(
            f"`{self.NAME} | {arg or ''}` has no title or an unknown option ({', '.join(options) or 'none'}): "
            "see docs/conventions.md#drills"
        )


class _Drill(_Loud):
    """What every drill shares: a labelled <section> with an anchor, and an "I can answer this" toggle."""

    CSS = ""

    def _open(self, parent: etree.Element) -> etree.Element:
        taken = self._block_mgr.trackers["spot-the-bug"].setdefault("drill ids", set())  # one set per page
        self.id = drill_id(self.argument, taken)
        section = etree.SubElement(
            parent,
            "section",
            {
                "class": f"drill {self.CSS}",
                "id": self.id,
                "data-drill": self.NAME,
                "aria-labelledby": f"{self.id}-title",
            },
        )
        etree.SubElement(section, "p", {"class": "drill__title", "id": f"{self.id}-title"}).text = self.argument
        return section

    def _close(self, section: etree.Element) -> None:
        foot = etree.SubElement(section, "div", {**_UNSEARCHED, "class": "drill__foot"})
        toggle = etree.SubElement(
            foot,
            "button",
            {"type": "button", "class": "progress-toggle", "data-progress-key": f"#{self.id}", "aria-pressed": "false"},
        )
        toggle.text = "I can answer this"

    def on_inline_end(self, block: etree.Element) -> None:
        title = block.find("p[@class='drill__title']")
        toggle = block.find("div[@class='drill__foot']/button")
        toggle.set("data-progress-label", plain_text(title, self.md))

    # ---- shared pieces
    def _snippet(self, target: str) -> Shown:
        include = parse_target(target)
        file = Path(self.config["base_path"], include.path) if include and include.section else None
        if file is None or not file.is_file():
            raise DrillError(f"`{target}` is not an existing snippet file and section")
        text = file.read_text(encoding="utf-8")
        lines = section_lines(text, include.section)
        if not lines:
            raise DrillError(f"`{target}`: the file has no section '{include.section}'")
        return Shown(include, lines)

    def _stash(self, parent: etree.Element, html: str, css: str | None = None) -> etree.Element:
        """Put finished HTML in the page (a bare <p> holding the placeholder is replaced whole)."""
        element = etree.SubElement(parent, "div" if css else "p", {"class": css} if css else {})
        element.text = self.md.htmlStash.store(html)
        return element

    def _caption(self, parent: etree.Element, shown: Shown) -> None:
        caption = self.config["caption"](shown.include)
        if caption:
            etree.SubElement(parent, "p", {"class": "snippet-source"}).text = caption

    @staticmethod
    def _button(parent: etree.Element, css: str, text: str, hidden: bool = False) -> etree.Element:
        button = etree.SubElement(parent, "button", {"type": "button", "class": f"drill-button {css}"})
        if hidden:
            button.set("hidden", "hidden")
        button.text = text
        return button


class SpotTheBug(_Drill):
    """Every line of `code` a choice; the `bug` line reveals the explanation (the body) and `fix`."""

    NAME = "spot-the-bug"
    CSS = "drill--spot"
    OPTIONS = {"code": ("", type_string), "bug": (None, type_any), "fix": ("", type_string), "hints": ({}, type_any)}

    def on_create(self, parent):
        section = self._open(parent)
        bugs = self.options["bug"] if isinstance(self.options["bug"], list) else [self.options["bug"]]
        section.set("data-bug", " ".join(str(bug) for bug in bugs))
        code = self._snippet(self.options["code"])
        etree.SubElement(
            section, "p", {**_UNSEARCHED, "class": "drill__prompt"}
        ).text = (
            "Which line is the bug? Click it, or Tab to the code, move with ↑ and ↓, and press Enter."
            if len(bugs) == 1
            else f"This code has {_COUNT.get(len(bugs), len(bugs))} buggy lines: find them all. Click each, "
            "or Tab to the code, move with ↑ and ↓, and press Enter."
        )
        lines = self._stash(section, line_choices(code.lines), "drill-spot__code highlight")
        lines.set("role", "group")
        lines.set("aria-label", "The code: choose the buggy line")
        self._caption(section, code)
        hints = etree.SubElement(section, "div", {"class": "drill-spot__hints", "hidden": "hidden"})
        for number, hint in sorted((self.options["hints"] or {}).items()):
            etree.SubElement(hints, "div", {"data-line": str(number)}).text = hint
        etree.SubElement(
            section, "div", {**_UNSEARCHED, "class": "drill__feedback", "role": "status", "aria-live": "polite"}
        )
        self._button(
            etree.SubElement(section, "div", {**_UNSEARCHED, "class": "drill__actions"}),
            "drill-spot__show",
            "Show answer",
        )
        self.answer = etree.SubElement(section, "div", {"class": "drill__answer", "hidden": "hidden"})
        return section

    def on_add(self, block):
        return self.answer

    def on_end(self, block):
        fix = self._snippet(self.options["fix"])
        etree.SubElement(self.answer, "p", {"class": "drill-spot__fix-label"}).text = "**The fix:**"
        self._stash(self.answer, code_block(fix.lines))
        self._caption(self.answer, fix)
        self._close(block)


class StepThrough(_Drill):
    """A stepper over `//// step` blocks; with a `graph`, each step draws it with that step's `nodes` running."""

    NAME = "step-through"
    CSS = "drill--steps"
    OPTIONS = {"code": ("", type_string), "root": ("", type_string), "graph": ({}, type_any)}

    def on_create(self, parent):
        section = self._open(parent)
        if self.options["code"]:
            code = self._snippet(self.options["code"])
            self._stash(section, code_block(code.lines))
            self._caption(section, code)
        self.viewport = etree.SubElement(
            section,
            "div",
            {"class": "drill-steps__viewport", "role": "group", "tabindex": "0", "aria-label": "Steps: ← and → move"},
        )
        return section

    def on_add(self, block):
        return self.viewport

    def on_end(self, block):
        steps = [child for child in self.viewport if child.get("class") == "drill-steps__step"]
        graph, done = self.options["graph"], []
        for number, step in enumerate(steps, start=1):
            step.set("data-step", str(number))
            if number > 1:
                step.set("hidden", "hidden")
            nodes = json.loads(step.get("data-nodes"))
            diagram = step.find("div[@class='drill-steps__diagram']")
            if graph:
                diagram.text = self.md.htmlStash.store(graph_svg(graph, nodes, done, "The graph"))
            else:
                step.remove(diagram)
            done += nodes
        nav = etree.SubElement(block, "div", {**_UNSEARCHED, "class": "drill-steps__nav"})
        self._button(nav, "drill-steps__prev", "← Previous").set("aria-disabled", "true")
        counter = etree.SubElement(nav, "p", {"class": "drill-steps__counter", "aria-live": "polite"})
        counter.text = f"Step 1 of {len(steps)}"
        self._button(nav, "drill-button--primary drill-steps__next", "Next →")
        self._close(block)


class Step(_Loud):
    NAME = "step"
    OPTIONS = {"nodes": ([], type_any)}

    def on_create(self, parent):
        step = etree.SubElement(
            parent, "div", {"class": "drill-steps__step", "data-nodes": json.dumps(self.options["nodes"] or [])}
        )
        etree.SubElement(step, "p", {"class": "drill-steps__title"}).text = self.argument
        etree.SubElement(step, "div", {"class": "drill-steps__diagram"})
        self.text = etree.SubElement(step, "div", {"class": "drill-steps__text"})
        return step

    def on_add(self, block):
        return self.text


class Match(_Drill):
    """`- item :: target` lines become target cards to drag onto items, each item also with a <select>."""

    NAME = "match"
    CSS = "drill--match"

    def on_create(self, parent):
        section = self._open(parent)
        etree.SubElement(
            section, "p", {**_UNSEARCHED, "class": "drill__prompt"}
        ).text = "Drag each answer onto the item it matches, or choose it from the item's list."
        self.source = etree.SubElement(section, "div")
        return section

    def on_add(self, block):
        return self.source

    def on_end(self, block):
        pairs = []
        for item in self.source.iter("li"):
            text = item.text if item.text and item.text.strip() else "".join(item.itertext())
            pair = split_match_item(text)
            if pair is None:
                raise DrillError(f"match `{self.argument}`: `{text.strip()}` has no target (`item :: target`)")
            pairs.append(pair)
        block.remove(self.source)
        pool = etree.SubElement(block, "div", {"class": "drill-match__pool", "aria-hidden": "true"})
        for number, (_, target) in enumerate(pairs, start=1):
            etree.SubElement(pool, "div", {"class": "drill-match__card", "data-target": f"t{number}"}).text = target
        rows = etree.SubElement(block, "ol", {"class": "drill-match__items"})
        for number, (item, _) in enumerate(pairs, start=1):
            row = etree.SubElement(rows, "li", {"class": "drill-match__item", "data-answer": f"t{number}"})
            label = f"{self.id}-item-{number}"
            etree.SubElement(row, "span", {"class": "drill-match__prompt", "id": label}).text = item
            choice = etree.SubElement(row, "span", {"class": "drill-match__choice"})
            # the chosen answer in full, wrapped (a <select> cuts it at its width); drills.js keeps it current
            etree.SubElement(choice, "span", {"class": "drill-match__shown", "aria-hidden": "true"}).text = "Choose…"
            etree.SubElement(choice, "select", {"class": "drill-match__select", "aria-labelledby": label})
            etree.SubElement(row, "span", {"class": "drill-match__verdict"})
        actions = etree.SubElement(block, "div", {**_UNSEARCHED, "class": "drill__actions"})
        self._button(actions, "drill-button--primary drill-match__check", "Check")
        self._button(actions, "drill-match__retry", "Try again", hidden=True)
        self._button(actions, "drill-match__reveal", "Reveal")
        etree.SubElement(
            block, "div", {**_UNSEARCHED, "class": "drill__feedback", "role": "status", "aria-live": "polite"}
        )
        self._close(block)

    def on_inline_end(self, block):
        super().on_inline_end(block)
        cards = [card for card in block.iter("div") if card.get("data-target")]
        choices = sorted((plain_text(card, self.md), card.get("data-target")) for card in cards)
        for select in block.iter("select"):
            etree.SubElement(select, "option", {"value": ""}).text = "Choose…"
            for text, value in choices:
                etree.SubElement(select, "option", {"value": value}).text = text


class Flashcards(_Drill):
    """A deck of `//// card` blocks, shown one at a time in a shuffled order: reveal, then got it / again."""

    NAME = "flashcards"
    CSS = "drill--cards"

    def on_create(self, parent):
        section = self._open(parent)
        self.counter = etree.SubElement(section, "p", {"class": "drill-cards__counter", "aria-live": "polite"})
        self.deck = etree.SubElement(section, "ol", {"class": "drill-cards__deck"})
        return section

    def on_add(self, block):
        return self.deck

    def on_end(self, block):
        cards = list(self.deck)
        for number, card in enumerate(cards, start=1):
            card.set("data-card", str(number))
            if number > 1:
                card.set("hidden", "hidden")
        self.counter.text = f"Card 1 of {len(cards)}"
        actions = etree.SubElement(block, "div", {**_UNSEARCHED, "class": "drill__actions"})
        self._button(actions, "drill-button--primary drill-cards__reveal", "Reveal")
        self._button(actions, "drill-button--primary drill-cards__got", "Got it", hidden=True)
        self._button(actions, "drill-cards__again", "Again", hidden=True)
        self._button(actions, "drill-cards__restart", "Shuffle and start over", hidden=True)
        self._close(block)


class Card(_Loud):
    NAME = "card"

    def on_create(self, parent):
        card = etree.SubElement(parent, "li", {"class": "drill-card"})
        front = etree.SubElement(card, "div", {"class": "drill-card__front"})
        etree.SubElement(front, "p").text = self.argument
        self.back = etree.SubElement(card, "div", {"class": "drill-card__back", "hidden": "hidden"})
        return card

    def on_add(self, block):
        return self.back


class _OptionLines(Preprocessor):
    """Authors write options flush left; pymdownx Blocks reads options indented by four spaces."""

    def run(self, lines):
        return indent_options(lines)


class DrillsExtension(BlocksExtension):
    def __init__(self, *args, **kwargs):
        self.config = {
            "base_path": [".", "the folder snippet paths start from (the repository root)"],
            # (a function as default: Markdown would turn a None default into a bool)
            "caption": [_no_caption, "include -> the Markdown caption under a drill's code block ('' for none)"],
        }
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr):
        # after superfences stashes fences (25), so a `///` shown inside a code block is left alone
        md.preprocessors.register(_OptionLines(md), "drill_options", 24)
        for block in (SpotTheBug, StepThrough, Step, Match, Flashcards, Card):
            block_mgr.register(block, self.getConfigs())


def _no_caption(include: Include) -> str:
    return ""


def plain_text(element: etree.Element, md=None) -> str:
    """The visible text of an element after inline Markdown, for labels and <option>s. Code spans that
    pymdownx.inlinehilite stashed as HTML are read back from the stash (`md`) without their tags."""

    def stashed(found: re.Match) -> str:
        index = int(found[1])
        if md is None or index >= len(md.htmlStash.rawHtmlBlocks):
            return ""
        html = md.htmlStash.rawHtmlBlocks[index]
        return _TAG.sub("", html if isinstance(html, str) else etree.tostring(html, encoding="unicode"))

    return " ".join(unescape(_STASHED.sub(stashed, "".join(element.itertext()))).split())


def makeExtension(*args, **kwargs):
    return DrillsExtension(*args, **kwargs)
