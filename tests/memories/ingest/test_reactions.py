"""Liking what was just said ("I like that.", "¡Me encanta!") is a reaction to the conversation, not a preference
of the user's own: offline it is not filed under the profile, in any language read offline, while a liking with an
object of its own ("El sushi me encanta.") still is. Sentences of our own."""

from __future__ import annotations

import pytest

from memories.ingest.extraction import Turn, extract_heuristic


def _kinds(text: str, language: str) -> set[str]:
    facts = extract_heuristic([Turn(ref="t1", text=text, speaker="Sam", language=language)]).facts
    return {fact.kind for fact in facts}


@pytest.mark.parametrize(
    ("language", "reaction", "preference"),
    [
        ("en", "Nice and simple, I like it. Can I print it out?", "I love hiking in the Cairngorms."),
        ("en", "I like that. Which plant should I repot first?", "I like that bakery on the corner of our street."),
        ("es", "¡Me encanta! Mañana lo pruebo.", "El sushi me encanta."),
        ("es", "Me gusta la idea, gracias.", "Me gusta mucho el cine coreano."),
        ("de", "Das mag ich. Danke dir!", "Ich mag dunkle Schokolade."),
        ("de", "Ich liebe es! Bis morgen.", "Ich liebe Jazz."),
        ("fr", "J'aime bien l'idée, merci.", "J'adore le jazz manouche."),
        ("pt", "Gosto disso, obrigado.", "Adoro sushi."),
    ],
)
def test_liking_what_was_just_said_is_not_a_preference(language, reaction, preference):
    assert "preference" not in _kinds(reaction, language)
    assert _kinds(preference, language) == {"preference"}
