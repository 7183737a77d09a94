"""German read offline (kbsite/languages/de/statements.py): what a statement says of one person, in chat's word orders
(the pronoun dropped, a time put first and the verb second), and what says nothing (what that carries:
tests/memories/recall/test_after.py). Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.statements import statement


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Greta: Ich wohne in Lübeck, direkt an der Trave.", {"residence": "lübeck"}),
        ("Greta: seit dem Frühjahr wohnen wir in Jena", {"residence": "jena"}),  # the verb second
        ("Greta: wohne jetzt in Passau", {"residence": "passau"}),  # the pronoun dropped
        ("Greta: Wir sind im Sommer nach Erfurt gezogen.", {"residence": "erfurt"}),
        ("Greta wohnt in Jena.", {"residence": "jena"}),  # an LLM's fact, in the third person
        ("Paul: Ich arbeite bei der Sparkasse.", {"employer": "sparkasse"}),
        ("Paul: ab Januar arbeite ich für eine Reederei in Emden", {"employer": "reederei"}),
        ("Paul: hab letzten Monat bei Zeiss angefangen", {"employer": "zeiss"}),
        ("Paul: Ich habe bei der Post gekündigt.", {"employer": "not post"}),
        ("Paul: ich arbeite als Dachdecker", {"occupation": "dachdecker"}),
        ("Paul: Ich bin Krankenpfleger auf der Intensivstation.", {"occupation": "krankenpfleger"}),
        ("Paul: ich wurde zum Schichtleiter befördert", {"occupation": "schichtleiter"}),
        ("Paul: Ich bin 52 Jahre alt.", {"age": "52"}),
        ("Paul: Meine Freundin Lea und ich haben heute gekocht", {"relationship": "dating"}),
        ("Paul: Wir haben uns im Mai verlobt!", {"relationship": "engaged"}),
        ("Paul: wir haben uns getrennt, leider", {"relationship": "single"}),
        ("Paul: Ich bin Veganerin.", {"diet": "vegan"}),
        ("Paul: Ich bin kein Vegetarier mehr.", {"diet": "not vegetarisch"}),
        ("Paul: ich esse wieder Fleisch", {"diet": "omnivor"}),
        ("Paul: Meine Lieblingsserie ist Dark.", {"favourite serie": "dark"}),
        ("Paul: Ich hasse Rosenkohl", {"likes rosenkohl": "no"}),
        ("Paul: ich fahre einen alten Passat", {}),  # an adjective first: no name of a car
        ("Paul: ich fahre einen Passat", {"car": "passat"}),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's age, partner, diet, a favourite, a dislike and a car, in German."""
    with languages.override("de"):
        assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    [
        "Wenn ich in Hamburg wohnen würde, hätte ich kein Auto.",
        "Wohnst du in Hamburg?",
        "Vielleicht arbeite ich bald bei Airbus.",
        "Ich bin nach der Arbeit ins Kino gegangen.",  # going out is no move
        "Heute ist es echt kalt.",
    ],
)
def test_questions_conditions_and_chat_state_nothing(text):
    """A question, a wish, a condition or small talk gives no attribute a value."""
    with languages.override("de"):
        assert statement(f"Greta: {text}").slots == {}
