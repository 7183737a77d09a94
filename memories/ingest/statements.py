"""Reading what a text states: the one-valued attributes of one person it gives a value, in the text's language
(:mod:`kbsite.languages`; no database).

An attribute has one value at a time: where a person lives, where, in which city and as what they work, their name
or age, where they stand with a partner, a favourite, a value of theirs such as a birthday or an address, or whether
they like a thing. What a text says has changed otherwise (ended, called off, put to another time, done without) is
read by :mod:`memories.ingest.changes`. Each language's reader (``kbsite/languages/<code>/statements.py``) says what
its statements look like.

The same reading keeps two facts apart that only look alike: texts with other numbers, or other values of one
attribute, are never near-duplicates of each other ("I am 31 years old" / "I am 32 years old" are 0.98 similar).
"""

from __future__ import annotations

import re
from functools import lru_cache

from kbsite import languages
from kbsite.languages.reading import (  # noqa: F401 - read from here too
    Statement,
    clash,
    contradicts,
    reading_of,
    statement_of,
    values_agree,
)
from memories.text import ANSWERING


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person, read in the language in force (``own`` as :func:`reading` takes it)."""
    return languages.current().statements.statement(text, own=own)


def slots_of(text: str, own: bool | None = None) -> dict[str, str]:
    """The attributes ``text`` states, read in the language in force (``own`` as :func:`reading` takes it); read
    once for the few readings an offline extraction asks of one text."""
    return dict(_slots_of(text, own, languages.current_code()))


@lru_cache(maxsize=4096)
def _slots_of(text: str, own: bool | None, code: str) -> tuple[tuple[str, str], ...]:
    with languages.override(code):
        return tuple(statement(text, own=own).slots.items())


def one_each(text: str, own: bool | None = None) -> list[str]:
    """``text`` cut where a clause of it states another attribute than the clauses before it ("Me llamo Lucía y vivo
    en Valencia." -> "Me llamo Lucía", "Vivo en Valencia."), so that each is held, and retired, on its own: her move
    retires where she lived, not her name. Cut only where each part, read alone, states what it stated in the whole
    (so each is kept however short: memories.ingest.extraction.kept); a clause stating nothing stays with the one
    before it ("I live in Paris, France"). Else, and in a language with no reader of statements, whole. ``own``: the
    speaker's own words, as :func:`reading` takes it."""
    parts_at = languages.current().statements.PARTS
    whole = slots_of(text, own=own)
    if parts_at is None or len(whole) < 2:
        return [text]
    parts: list[tuple[str, set[str]]] = []  # each part as written, and the attributes its clauses state
    start, joint = 0, ""
    for cut in [*parts_at.finditer(text), None]:
        clause = text[start : cut.start() if cut else len(text)]
        stated = set(slots_of(clause, own=own))
        if parts and not (stated and parts[-1][1]):  # back with the words it was cut at: "I live in Paris, France"
            parts[-1] = (parts[-1][0] + joint + clause, parts[-1][1] | stated)
        else:
            parts.append((clause, stated))
        start, joint = (cut.end(), cut.group(0)) if cut else (start, "")
    pieces = [_opening(part.strip(), n) for n, (part, _) in enumerate(parts)]
    each = [slots_of(piece, own=own) for piece in pieces]
    if len(pieces) < 2 or not all(each) or {k: v for slots in each for k, v in slots.items()} != whole:
        return [text]
    return pieces


def _opening(piece: str, n: int) -> str:
    """A part cut from a statement, opening as a sentence (the first as written): "Vivo en Valencia."."""
    return piece[0].upper() + piece[1:] if n and piece[:1].islower() else piece


def reading(text: str, language: str, own: bool | None = None) -> dict:
    """What ``text`` states and says has changed, read in ``language``, to store on its memory (read once). ``own``:
    the text is its speaker's own words (an offline fact of a user's turn; None: told from the text). Of a short
    answer, only the answer is read: the bot's question it keeps is not the user's statement."""
    with languages.override(language):
        return reading_of(text.split(ANSWERING, maxsplit=1)[0], own=own)


def statement_read(text: str, language: str, stored: dict | None) -> Statement:
    """What a memory states: its stored reading, else read now in its language (a memory of an earlier release)."""
    if stored:
        return statement_of(stored)
    with languages.override(language):
        return statement(text)


def apart(old_text: str, new_text: str) -> bool:
    """Two texts that must not count as near-duplicates however similar: other numbers, or another value of an
    attribute both state."""
    if sorted(re.findall(r"\d+", old_text)) != sorted(re.findall(r"\d+", new_text)):
        return True
    old, new = statement(old_text), statement(new_text)
    return old.speaker == new.speaker and any(
        slot in new.slots and not values_agree(value, new.slots[slot]) for slot, value in old.slots.items()
    )
