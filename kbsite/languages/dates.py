"""The shapes of dates in languages that write them as "16 <month> 2023" (with the language's own connecting words),
built from a language's month names: the patterns query periods are read with."""

from __future__ import annotations

import re


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
