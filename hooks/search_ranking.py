"""Hook: a search index that answers what people type — lowercase class names, and questions before intros.

Material's search splits the index's text with `plugins.search.separator` (mkdocs.yml), which splits
CamelCase so that `scaler` finds `GradScaler`. But then the index holds only `grad` + `scaler`, and a
reader who types `gradscaler` (people type lowercase) matches nothing. A separator cannot keep both
forms, so this hook adds the joined form next to the split one: each entry of the built
`search/search_index.json` gets the CamelCase words of its title in `joined_title` and of its text in
`joined_text`, lowercase (`gradscaler`), two fields that mkdocs.yml weighs as the title and the text.

It also lowers the weight of each page's intro entry (the part before the first heading). Material
multiplies an intro's score by 1 + (1 + share of query words matched)², a section's by
1 + (share)²; so an intro that matched half the words beat a question whose heading held them all
(`nan loss` brought up the Losses intro, not the question on NaN losses). INTRO_BOOST evens that out.

The rewrite runs on the index file after Material has written it (on_post_build; hooks run after the
plugins), and is a pure function on its text, tested in tests/hooks/test_search_ranking.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

_WORD = re.compile(r"\w+")
_CAMEL_CUT = re.compile(r"(?<=\w)(?=[A-Z][a-z])")  # where the separator cuts a word: before "Sc" in GradScaler
# An intro counts this much of a section; measured with tests/browser/test_search.py (see mkdocs.yml).
INTRO_BOOST = 0.4
FIELDS = ("title_variants", "text_variants")


def word_variants(text: str) -> list[str]:
    """The other forms readers type of the compound words in `text`, lowercase, in first-seen order:
    a CamelCase word joined (the separator splits it: `GradScaler` -> "gradscaler"), a snake_case word
    split (the separator keeps it: `zero_grad` -> "zero", "grad", for the query `zero grad`)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        if _CAMEL_CUT.search(word):
            seen.setdefault(word.lower(), None)
        parts = [part for part in word.split("_") if part]
        if len(parts) > 1:
            for part in parts:
                seen.setdefault(part.lower(), None)
    return list(seen)


def rank_index(index_json: str, where: str = "search/search_index.json") -> str:
    """The index with the joined words of each entry and lighter intros (see the module docstring).
    Raises ValueError naming `where` when the text is not Material's index (Material changed: look again)."""
    try:
        index = json.loads(index_json)
        docs, fields = index["docs"], index["config"]["fields"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{where}: not Material's search index ({error}); check hooks/search_ranking.py") from error
    missing = [name for name in FIELDS if name not in fields]
    if missing:
        raise ValueError(
            f"{where}: the fields {missing} are not in plugins.search.fields of mkdocs.yml; "
            "without them the joined words are never searched"
        )
    for doc in docs:
        for name, source in zip(FIELDS, ("title", "text"), strict=True):
            words = word_variants(re.sub(r"<[^>]+>", " ", doc.get(source, "")))
            if words:
                doc[name] = " ".join(words)
            else:
                doc.pop(name, None)
        if "#" not in doc["location"] and "boost" not in doc:
            doc["boost"] = INTRO_BOOST
    return json.dumps(index, separators=(",", ":"), ensure_ascii=False)


def on_post_build(config):
    path = Path(config.site_dir) / "search" / "search_index.json"
    if not path.is_file():  # search is off
        return
    try:
        path.write_text(rank_index(path.read_text(encoding="utf-8"), str(path)), encoding="utf-8")
    except ValueError as error:
        raise PluginError(str(error)) from error
