"""Languages as data: each language's words, patterns and readers live in a package of its own here
(``kbsite/languages/<code>/``), as Django keeps its locale formats in ``django/conf/locale/<code>/``; code asks for
the language of the text at hand (:func:`current`, set with :func:`override`) and never holds a language's words.

A language with a package of its own is read offline (statements, changes, the subjects of questions, relations,
dates); every language PostgreSQL can stem is searched in full text under its own configuration (``FTS_CONFIGS``),
any other under ``simple``. A text's language is told by :mod:`kbsite.languages.detection`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from types import ModuleType

DEFAULT = "en"
# The language codes of a text read as English: English, or none told (too short to tell). Any other gets a second,
# multilingual vector (memories.multilingual) and is searched by it.
ENGLISH = ("en", "")
# The languages read offline: each has a package here.
READ = ("en", "es", "de", "fr", "pt")
# PostgreSQL's text-search configurations, by language code (kbsite's migrations make a ``kbsite_<name>`` copy of
# each, with unaccent, and the database function kbsite_fts_config); any other language is searched as simple.
FTS_CONFIGS = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian", "ne": "nepali",
    "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
SIMPLE = "simple"
AUTO = "auto"


def _choices() -> list[tuple[str, str]]:
    from django.conf.locale import LANG_INFO

    from kbsite.languages.detection import CANDIDATES

    info = {**LANG_INFO, "zh": LANG_INFO["zh-hans"]}
    named = sorted((code, info[code]["name"]) for code in CANDIDATES)
    return [(AUTO, "Auto: each text's own, told as it comes in"), *named]


CHOICES = _choices()
# A language's name by its code ("es": "Spanish"), of every language a text may be told in.
NAMES = {code: name for code, name in CHOICES if code != AUTO}


def is_code(code: str) -> bool:
    """Whether ``code`` is the code of a language a text may be told in ("es")."""
    return code in NAMES


_current: ContextVar[str] = ContextVar("language", default=DEFAULT)


@cache
def get(code: str) -> ModuleType:
    """The package of the language ``code``; a language not read offline is read as the default one."""
    return importlib.import_module(f"kbsite.languages.{code if code in READ else DEFAULT}")


def current() -> ModuleType:
    """The language of the text being read now."""
    return get(_current.get())


def current_code() -> str:
    return _current.get()


@contextmanager
def override(code: str | None) -> Iterator[ModuleType]:
    """Read in the language ``code`` inside the block (None or "": the language in force stays)."""
    if not code:
        yield current()
        return
    token = _current.set(code)
    try:
        yield get(code)
    finally:
        _current.reset(token)
