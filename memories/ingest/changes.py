"""Reading what a text says has changed: a thing ended, called off, put to another time or done without, in the
text's language (:mod:`kbsite.languages`; no database). Each is a :class:`Change` naming the thing by its words,
which says which older texts it makes a thing of the past.
"""

from __future__ import annotations

from kbsite import languages
from kbsite.languages.reading import Change, mentions  # noqa: F401 - read from here too


def changes(text: str) -> list[Change]:
    """Every thing ``text`` says has ended, been called off, been put to another time, or is done without now."""
    return languages.current().changes.changes(text)


def ended(text: str) -> list[frozenset[str]]:
    """The things ``text`` says have ended, each as the words that name it."""
    return languages.current().changes.ended(text)


def names_a_time(text: str) -> bool:
    """Whether ``text`` names a time: a month, a weekday, a season, a date."""
    return languages.current().changes.names_a_time(text)
