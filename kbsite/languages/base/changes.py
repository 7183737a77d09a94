"""No change of state is read in a language without readers of its own, but a date named in ISO form."""

from __future__ import annotations

import re

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
    return TIME_NAMED.search(text) is not None
