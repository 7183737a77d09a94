"""A question read once (:class:`ParsedQuery`): its words, and what it names besides them, a span of time ("on 16
June, 2023", "in May 2022"), the people in it, the subjects it asks about."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from kbsite import languages
from kbsite.ai.fulltext import WORD, text_query
from memories.recall.relatives import subject_words


@dataclass(frozen=True)
class ParsedQuery:
    """What recall and the context block read of a question, read once in the question's language: its informative
    words as a full-text query, the words an end user's question is also searched for (the subjects it asks about,
    the names of the relatives it names: :func:`subject_words`, one database query when it names a relation), the
    span of time it names, whether it names a given name, and whether it asks where."""

    tsquery: str
    about: tuple[str, ...]
    period: tuple[datetime, datetime] | None
    names: Callable[[str], bool]
    where: bool = False


def query_parse(text: str, end_user_id: int | None, held: Iterable[str] = ()) -> ParsedQuery:
    """``text`` read in the current language (:func:`kbsite.languages.override` it to the question's); ``held``,
    the languages of the facts searched (the subjects' words are searched in each)."""
    return ParsedQuery(
        tsquery=text_query(text),
        about=tuple(subject_words(text, end_user_id, held)),
        period=query_period(text),
        names=named(text),
        where=languages.current().words.WHERE.search(text) is not None,
    )


def query_period(query: str) -> tuple[datetime, datetime] | None:
    """The span of time a query names, if any: a day ("on 16 June, 2023"), a month ("in May 2022") or a
    year ("in 2024"); the first such date wins. A memory dated inside it (``valid_from``: when the turn
    was said, or when the fact became true) is more likely what the question is about."""
    words = languages.current().words
    for precision, pattern in words.DATE_PATTERNS:
        match = pattern.search(query)
        if not match:
            continue
        parts = match.groupdict()
        month = parts.get("month")
        try:
            year = int(parts["year"])
            month = int(month) if month and month.isdigit() else words.MONTHS.get((month or "").lower().rstrip("."), 1)
            if precision == "day":
                start = datetime(year, month, int(parts["day"]), tzinfo=UTC)
                # A day said in one time zone is stored in UTC: a day either side.
                return start - timedelta(days=1), start + timedelta(days=2)
            if precision == "month":
                start = datetime(year, month, 1, tzinfo=UTC)
                end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
                return start, end
            return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
        except ValueError:  # "31 February": not a date
            continue
    return None


def named(query: str):
    """Whether a (lowercase) name occurs in ``query`` as whole words ("Melanie's" names "melanie")."""
    words = []
    for word in WORD.findall(query.lower()):
        words.append(word)
        if word.endswith(("'s", "’s")):
            words.append(word[:-2])
    lowered = f" {' '.join(words)} "
    return lambda name: f" {name} " in lowered
