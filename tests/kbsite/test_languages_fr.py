"""French statements read offline (kbsite/languages/fr/statements.py): what a statement says of one person's
one-valued attributes, in their own words or an LLM's; what says nothing. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.statements import reading, statement


@pytest.fixture(autouse=True)
def french():
    with languages.override("fr"):
        yield


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Inès: J'habite à Toulouse avec deux colocs.", {"residence": "toulouse"}),
        ("Inès: On a enfin déménagé à Bordeaux !", {"residence": "bordeaux"}),
        ("Inès habite à Bordeaux.", {"residence": "bordeaux"}),  # an LLM's fact, in the third person
        ("Marc: Je bosse comme cuisinier dans une brasserie.", {"occupation": "cuisinier", "employer": "brasserie"}),
        ("Marc: J'ai été embauché chez Michelin", {"employer": "michelin"}),
        ("Marc: J'ai 38 ans.", {"age": "38"}),
        ("Marc: Je suis végétarien depuis 2021.", {"diet": "végétarien"}),
        ("Marc: Avec Léa on s'est mariés en juin", {"relationship": "married"}),
        ("Marc: J'adore les madeleines", {"likes madeleines": "yes"}),
        # Two clauses of one's own joined by "et": both read; an "et" inside a value parts nothing.
        ("Inès: Je m'appelle Inès et j'habite à Pau.", {"name": "inès", "residence": "pau"}),
        ("Inès: J'aime le pain et le fromage.", {}),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's age, diet, partner, name and a liking, in French."""
    assert statement(text).slots == slots


@pytest.mark.parametrize("text", ["Si j'habitais à Nice, je serais ravie.", "Tu habites à Nice ?"])
def test_questions_and_conditions_state_nothing(text):
    """A question or a condition gives no attribute a value."""
    assert statement(f"Inès: {text}").slots == {}


def test_a_turn_of_no_named_speaker_is_read_as_the_speakers_own_words():
    """Posted with no speaker's name, a sentence about someone else states nothing of the speaker, and "Tu…" or
    "Il a plu…" names no one."""
    assert reading("Je travaille chez Ubisoft.", "fr", own=True)["slots"] == {"employer": "ubisoft"}
    assert reading("Ma sœur habite à Brest.", "fr", own=True)["slots"] == {}
    assert statement("Il a plu toute la journée.").speaker == ""
