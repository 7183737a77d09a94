"""What a vague question is about: the everyday subjects a bot is asked of ("tell me about the family", "any
pets?", "what does she do?") and the words that state facts of them.

A question shares no word with the facts that answer it ("family" / "My sister plays the cello"), and a small
sentence embedding ranks them barely above anything else (0.20 against 0.19 for a dog). A question that names a
subject, by any of its words, is searched for the subject's words too: in full text, as another ranked list, and in
what qualifies a memory for the context block and an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbsite import languages
from kbsite.languages.reading import Concept


def concepts_asked(question: str) -> list[Concept]:
    """The subjects ``question`` asks about."""
    return [c for c in languages.current().concepts.CONCEPTS if c.asks.search(question)]


def concept_words(question: str, also: Iterable[str] = ()) -> list[str]:
    """The words of the subjects ``question`` asks about, not already in it; with ``also`` (the codes of the
    languages the facts searched are in), the same subjects' words in each of those languages too: a Spanish
    question about work is searched for "job" and "office" among English facts."""
    asked = set(re.findall(r"\w+", question.lower()))
    subjects = concepts_asked(question)
    named = {concept.name for concept in subjects}
    # In another language, a subject is asked by any of its words too ("what is her cat called?": the pets' words in
    # French hold "chat", which the question does not share with "Biscotte le chat dort sur mon clavier").
    by_word = named | {c.name for c in languages.current().concepts.CONCEPTS if asked & set(c.words)}
    current = languages.current_code()
    for code in dict.fromkeys(also):
        if code and code != current and code in languages.READ:
            subjects += [c for c in languages.get(code).concepts.CONCEPTS if c.name in by_word]
    out: list[str] = []
    for concept in subjects:
        out += [w for w in concept.words if w not in asked and w not in out]
    return out


def slots_asked(question: str) -> set[str]:
    """The one-valued attributes of the user ``question`` asks for ("where does she live": residence); none where it
    asks about someone by how they stand to the user ("where does her sister live?", "what does her husband do?"):
    the user's own home or job is not the answer."""
    relations = languages.current().relations
    if any(word in relations.RELATIONS for word in relations.WORD.findall(question.lower())):
        return set()
    return {slot for concept in concepts_asked(question) for slot in concept.slots}
