"""Months and dates in a language's words: the shapes of dates in languages that write them as "16 <month> 2023"
(with the language's own connecting words), built from its month names (the patterns query periods are read with),
whether a word names a month, and a day written as the language writes it for a reader."""

from __future__ import annotations

import re
from datetime import date
from functools import cache

from django.utils import formats, translation

from kbsite import languages


def months(names: list[tuple[str, ...]]) -> dict[str, int]:
    """Each month name (and abbreviation) to its number, from twelve tuples of names."""
    return {name: number for number, group in enumerate(names, start=1) for name in group}


def date_patterns(months_: dict[str, int], *, of: str, in_year: str) -> list[tuple[str, re.Pattern]]:
    """Day, month and year patterns: "16 <of> junio <of> 2023", ISO dates, "junio <of> 2023", "<in_year> 2024";
    ``of`` and ``in_year`` are the language's words between them (regex alternatives; ``of`` may be empty)."""
    month = r"(?P<month>" + "|".join(sorted(months_, key=len, reverse=True)) + r")\.?"
    day, year = r"(?P<day>[0-3]?\d)\.?", r"(?P<year>(?:19|20)\d\d)"
    link = rf"\s+(?:(?:{of})\s+)?" if of else r"\s+"
    return [
        ("day", re.compile(rf"\b{day}{link}{month},?{link}{year}\b", re.I)),
        ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")),
        ("month", re.compile(rf"\b{month},?{link}{year}\b", re.I)),
        ("year", re.compile(rf"\b(?:{in_year})\s+{year}\b", re.I)),
    ]


def a_month(word: str) -> bool:
    """Whether ``word`` names a month in full in the language in force ("june", "septiembre"; not "mar", which is
    March cut short and a word of its own): a time, never a value of an attribute ("I moved in June")."""
    return word in _full_months(languages.current_code())


@cache
def _full_months(code: str) -> frozenset[str]:
    months_ = getattr(languages.get(code).words, "MONTHS", {})
    return frozenset(
        name
        for name, n in months_.items()
        if not any(o != name and o.startswith(name) and m == n for o, m in months_.items())
    )


def in_words(day: date, code: str) -> str:
    """``day`` as a reader of language ``code`` writes it ("14 September 2024", "14 de septiembre de 2024",
    "14. September 2024", "14 septembre 2024"): in the format the language's package gives (``DATE_IN_WORDS``), else
    Django's date format of the language (its locale formats), the month in full, named in the language."""
    with translation.override(code):
        written = getattr(languages.get(code).words, "DATE_IN_WORDS", None) if code in languages.READ else None
        return formats.date_format(day, written or formats.get_format("DATE_FORMAT").replace("N", "F"))
