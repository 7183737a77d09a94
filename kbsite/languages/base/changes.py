"""No change of state is read in a language without readers of its own; a time is named by a date in ISO form or by
the language's own months ("am 14. Juni", "le 12 juillet", "em dezembro")."""

from __future__ import annotations

import re
from functools import cache

from kbsite import languages
from kbsite.languages.reading import Change

WORK_WORDS: list[str] = []
WORK_SAID = re.compile(r"(?!)")  # matches nothing
TIME_NAMED = re.compile(r"\b\d{4}-\d\d-\d\d\b")
TEMPORARY = re.compile(r"(?!)")
USED: dict = {}
LONG_STATEMENT = 16
OWN: tuple[str, ...] = ()


def ended(text: str) -> list[frozenset[str]]:
    return []


def changes(text: str) -> list[Change]:
    return []


def names_a_time(text: str) -> bool:
    """Whether ``text`` names a time: an ISO date, a month of the language in force by its full name, or by any of
    its names after a day ("14. Juni", "20 de dez")."""
    return TIME_NAMED.search(text) is not None or _months_named(languages.current_code()).search(text) is not None


@cache
def _months_named(code: str) -> re.Pattern:
    months = getattr(languages.current().words, "MONTHS", {})
    if not months:
        return re.compile(r"(?!)")
    # A month's shorter names are often words of their own ("mar", the sea; "set"): alone, only its full name.
    full = {max((n for n, m in months.items() if m == number), key=len) for number in set(months.values())}
    every = "|".join(sorted(months, key=len, reverse=True))
    return re.compile(
        r"\b(?:"
        + "|".join(sorted(full, key=len, reverse=True))
        + r")\b|\b\d{1,2}\.?\s+(?:\w{1,3}\s+)?(?:"
        + every
        + r")\b",
        re.I,
    )
