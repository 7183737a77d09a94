"""Reading plain text in the language in force (:func:`kbsite.languages.current`): its words, content words and
sentences, and whether it says anything (salience). No database, no LLM."""

from __future__ import annotations

import re
from functools import lru_cache

from kbsite import languages
from kbsite.languages.lemmas import lemma

MIN_CONTENT_WORDS = 3
# Words of any script ("Pitié", "Müller"), of two characters or more, and numbers.
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-])+|\d+")
NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-])+")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def stems(words: list[str], code: str | None = None) -> frozenset[str]:
    """Words of the language ``code`` (by default the one in force) as their lemmas cut to their first five letters,
    a possessive or an apostrophe off: "moved" and "move", "allergic" and "allergy", "Clio's" and "Clio" meet, and
    so do forms whose first letters differ ("wohnt" and "wohnen", "vive" and "vivía", "cão" and "cães")."""
    code = code or languages.current_code()
    return frozenset(lemma(re.sub(r"['’]s$|['’]", "", w), code)[:5] for w in words)


# A compound's head, the shortest (German "Kurs", "Arzt"), after a modifier of at least this many letters ("Eis").
HEAD_LETTERS, MODIFIER_LETTERS = 4, 3


def compound_heads(words: list[str], code: str) -> frozenset[str]:
    """For a language that writes a compound as one word, its head last (its words' ``COMPOUNDS``: German), the
    stems (as :func:`stems` cuts them) of every head a long word may end in: "volksschullehrerin" holds "lehre" (of
    "lehrerin"), "erdnussallergie" "aller", "aquarellkurs" "kurs", so that a question wanting teachers, allergies or
    a course finds them. Else none. No lexicon tells a real head from a chance one: only a stem the question wants
    makes either count."""
    if not getattr(languages.get(code).words, "COMPOUNDS", False):
        return frozenset()
    return frozenset(
        word[i : i + 5]
        for word in words
        for i in range(MODIFIER_LETTERS, len(word) - HEAD_LETTERS + 1)
        if word.isalpha()
    )


def content_words(text: str) -> list[str]:
    words = languages.current().words
    found = (m.group(0).lower() for m in WORD.finditer(text))
    if elided := getattr(words, "ELIDED", None):  # "j'habite": habite
        found = (elided.sub("", w) for w in found)
    return [w for w in found if w not in words.STOPWORDS and w not in words.TRIVIAL]


def is_salient(text: str, language: str = "") -> bool:
    """Greetings, thanks and turns that assert nothing are skipped without an LLM call (read in ``language``, else
    in the language in force)."""
    return _is_salient(text, language or languages.current_code())


@lru_cache(maxsize=4096)  # a job asks of each turn, then of each of its segments (mostly the turn itself)
def _is_salient(text: str, code: str) -> bool:
    with languages.override(code):
        words = len(content_words(text))
    return words >= MIN_CONTENT_WORDS or (words >= 1 and languages.get(code).words.DURABLE.search(text) is not None)


def any_sentences(text: str) -> list[str]:
    """The sentences of ``text`` read widely: lower case opening them too, not cut after a title or an abbreviation
    of the language."""
    return languages.current().words.ANY_SENTENCE.split(text)


def asks_before(question: str) -> bool:
    """Whether ``question`` asks how things were before a change ("Where did she work before the startup?"), not
    what to know before something the asker is about to do ("Anything I should know before inviting her?"), nor where
    someone comes from ("Where is she from originally?": a fact of now; a "before" word of the question outside
    such a phrase still asks)."""
    words = languages.current().words
    if words.AHEAD.search(question) is not None:
        return False
    origins = [match.span() for match in words.ORIGIN.finditer(question)]
    return any(
        not any(start <= match.start() and match.end() <= end for start, end in origins)
        for match in words.BEFORE.finditer(question)
    ) or (words.NOW.search(question) is None and _asks_former(question))


def _asks_former(question: str) -> bool:
    """Whether ``question`` names the one before ("his previous landlord", "sein früherer Chef": the language's
    ``FORMER``), not beside a word of the chat itself ("my previous question": its ``CONVERSATION``)."""
    words = languages.current().words
    said = re.findall(r"\w+", question.lower())
    return any(
        words.FORMER.fullmatch(word)
        and not {said[n - 1] if n else "", said[n + 1] if n + 1 < len(said) else ""} & words.CONVERSATION
        for n, word in enumerate(said)
    )
