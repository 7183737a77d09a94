"""What a vague question is about: the everyday subjects a bot is asked of ("tell me about the family", "any
pets?", "what does she do?") and the words that state facts of them.

A question shares no word with the facts that answer it ("family" / "My sister plays the cello"), and a small
sentence embedding ranks them barely above anything else (0.20 against 0.19 for a dog). A question that names a
subject, by any of its words, is searched for the subject's words too: in full text, as another ranked list, and in
what qualifies a memory for the context block and an answer.
"""

from __future__ import annotations

import re

from kbsite import languages
from kbsite.languages.reading import Concept


def concepts_asked(question: str) -> list[Concept]:
    """The subjects ``question`` asks about."""
    return [c for c in languages.current().concepts.CONCEPTS if c.asks.search(question)]


def concept_words(question: str) -> list[str]:
    """The words of the subjects ``question`` asks about, not already in it."""
    asked = set(re.findall(r"\w+", question.lower()))
    out: list[str] = []
    for concept in concepts_asked(question):
        out += [w for w in concept.words if w not in asked and w not in out]
    return out


def slots_asked(question: str) -> set[str]:
    """The one-valued attributes ``question`` asks for ("where does she live": residence)."""
    return {slot for concept in concepts_asked(question) for slot in concept.slots}
