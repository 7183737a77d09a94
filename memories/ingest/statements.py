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


def statement(text: str) -> Statement:
    """What ``text`` states of one person, read in the language in force."""
    return languages.current().statements.statement(text)


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
