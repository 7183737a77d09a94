"""The truth benchmark's scorer: whether a context block or an answer holds the needed fact, and whether it presents a
replaced value as current.

A text is judged in units: the block's lines (its entries), and an answer's sentences too (a day written with a
period, as German writes "am 12. November", does not end one). A sentence of an answer belongs to the quote it is
in: one that opens with no date or mark of its own takes those its quote opened with ("(2024-01-14) Ramesh: Slowly.
Every morning I walk in KBR Park now." is two units dated 2024-01-14). Matching is
case-insensitive on whole words ("cat" is not in "category"); in a language that writes compounds as one word
(``COMPOUNDING``: German, Dutch, the Scandinavian languages), a value also names the compound it opens ("Ruder" is in
"Rudersaison", "Birke" in "Birkenpollen", "Latein" in "Lateinlehrerin"), the rest following in lower case.

- A unit is **marked earlier** when the product says so in it: its "(earlier…)" marker (the block's
  "(earlier, until 2024-07-14) …", the LLM prompt's "(earlier, no longer true) …"). Wording of the chat itself
  ("until", "sold", "moved from") is not a mark: the reader of the block cannot tell a quoted "I left Leeds in 2019"
  from a current fact.
- The text **holds the fact** when a unit not marked earlier names any of ``expect``. A question tagged ``history``
  asks about the past, and a unit marked earlier holds its fact as well.
- A unit **presents a replaced value as current** when it names one of ``stale``, is not marked earlier, names no
  ``expect`` value itself (it then shows the change: "swapped the Golf for a Tesla"), and no unit of the text that
  holds the fact is dated later than it. A unit's date is the first ISO date it shows ("(2024-07-14) …", "On
  2024-07-14: …"), or the date in words a quote opens with (ask's, asked when: "(July 14, 2024) …", "(14 de julio de
  2024) …", "(14. Juli 2024) …"), else its quote's; a unit without one is never outdated by another.
- Values are looked for in the unit as written, its own date included (a birthday answered by the day it was said:
  "(2024-03-14) It's my birthday today!"), not in the date of the quote it only belongs to.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cache

from kbsite import languages

EARLIER = re.compile(r"\(earlier\b", re.I)
SENTENCE = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+")  # not after a day written "12." (German)
DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# What may open a quote, after a block entry's "- [memory 12, doc faq#0] ": a bracket; it opens one when it holds a
# date, "(2024-01-14)" (an insight's span, "(2023-11-05 – 2024-10-01)"; ask's in words, asked when: "(July 14,
# 2024)"), or is the product's mark, "(earlier, until …)" (see opening()).
OPENING = re.compile(r"^\s*(?:-\s*)?(?:\[[^\]]*\]\s*)?(\([^()]{5,60}\))?")


# The languages that write a compound as one word, whose first part may be the value asked for.
COMPOUNDING = frozenset({"de", "nl", "sv", "da", "no"})
# What ends a value: the end of a word, or, in a compounding language, the rest of a compound it opens (three letters
# or more, in lower case).
_WORD_END = r"(?!\w)"
_COMPOUND_END = r"(?:(?!\w)|(?=(?-i:[a-zäöüßåæø]){3}))"


def mentions(text: str, phrase: str, compounds: bool = False) -> bool:
    end = _COMPOUND_END if compounds else _WORD_END
    return re.search(r"(?<!\w)" + re.escape(phrase) + end, text, re.I) is not None


def names_any(text: str, phrases: list[str], compounds: bool = False) -> bool:
    return any(mentions(text, phrase, compounds) for phrase in phrases)


def units(text: str, *, sentences: bool) -> list[tuple[str, str]]:
    """The units a value is judged in, lines (the block's entries) and also sentences (an answer's), each with the
    opening of the quote it is in (the date or mark it opens with, or else the one its quote opened with; see
    opening_of)."""
    out = []
    for line in (line for line in text.splitlines() if line.strip()):
        opening = ""
        for sentence in SENTENCE.split(line) if sentences else [line]:
            opening = opening_of(sentence) or opening
            out.append((sentence, opening))
    return out


def opening_of(sentence: str) -> str:
    """The date or mark ``sentence`` opens with, else "": a bracket the chat opens a sentence with ("(Honestly, since
    2019) I rent in Leeds.") is said, and leaves the sentence in the quote it is in."""
    bracket = OPENING.match(sentence).group(1) or ""
    return bracket if bracket and (marked_earlier(bracket) or dated(bracket) is not None) else ""


def marked_earlier(unit: str) -> bool:
    return EARLIER.search(unit) is not None


def dated(unit: str) -> date | None:
    if match := DATE.search(unit):
        try:
            return date(*map(int, match.groups()))
        except ValueError:
            return None
    for words in _read():  # a day in words: "(14 July 2024)", "(14 de julio de 2024)", "(14. Juli 2024)"
        for precision, pattern in words.DATE_PATTERNS:
            match = pattern.search(unit) if precision == "day" else None
            if match and (month := words.MONTHS.get(match["month"].lower().rstrip("."))):
                try:
                    return date(int(match["year"]), month, int(match["day"]))
                except ValueError:
                    return None
    return None


@cache
def _read() -> list:
    """The words of every language read offline (kbsite.languages): their day patterns and month names are the
    product's own."""
    return [languages.get(code).words for code in languages.READ]


def _marked(unit: str, opening: str) -> bool:
    """Marked earlier: in the unit itself, or by the quote it is in."""
    return marked_earlier(unit) or marked_earlier(opening)


def _when(unit: str, opening: str) -> date | None:
    """The unit's date: its own, else that of the quote it is in."""
    return dated(unit) or dated(opening)


def holds(
    text: str, expect: list[str], *, history: bool = False, sentences: bool = False, compounds: bool = False
) -> bool:
    """Whether ``text`` holds the needed fact: a unit not marked earlier (any unit, asked about the past) names one
    of ``expect`` (``compounds``: the text's language writes compounds as one word)."""
    return any(
        names_any(unit, expect, compounds) and (history or not _marked(unit, opening))
        for unit, opening in units(text, sentences=sentences)
    )


def stale_units(
    text: str, stale: list[str], expect: list[str], *, sentences: bool = False, compounds: bool = False
) -> list[str]:
    """The units of ``text`` that present one of ``stale`` as current (see the module's docstring)."""
    if not stale:
        return []
    all_units = units(text, sentences=sentences)
    current = [_when(u, o) for u, o in all_units if names_any(u, expect, compounds) and not _marked(u, o)]
    found = []
    for unit, opening in all_units:
        if not names_any(unit, stale, compounds) or _marked(unit, opening) or names_any(unit, expect, compounds):
            continue
        when = _when(unit, opening)
        if when is not None and any(later is not None and later > when for later in current):
            continue  # a newer statement of the fact sits beside it, dated: the reader sees which is current
        found.append(unit)
    return found
