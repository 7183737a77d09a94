"""German statements read offline (kbsite/languages/de/statements.py): what a statement says of one person's
one-valued attributes, in their own words or an LLM's, in German's own word orders; what says nothing. Sentences of
our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.statements import statement


@pytest.fixture(autouse=True)
def german():
    with languages.override("de"):
        yield


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Greta: Ich wohne in Rostock.", {"residence": "rostock"}),
        ("Greta: wohn in ner kleinen bude in connewitz mit meiner katze", {"residence": "connewitz"}),
        ("Greta wohnt in Rostock.", {"residence": "rostock"}),  # an LLM's fact, in the third person
        # The verb second after a time, the participle last, the verb last in a clause of since when.
        ("Greta: Seit Oktober leben wir in Jena.", {"residence": "jena"}),
        ("Greta: Im Sommer sind wir nach Kassel umgezogen.", {"residence": "kassel"}),
        ("Greta ist nach Kassel gezogen.", {"residence": "kassel"}),
        ("Greta: Seitdem wir in Kassel wohnen, gehe ich öfter schwimmen.", {"residence": "kassel"}),
        ("Greta: Ich arbeite bei der Telekom.", {"employer": "telekom"}),
        ("Greta: Ab Januar arbeite ich für eine Spedition.", {"employer": "spedition"}),
        # The separable verb's particle last; leaving.
        ("Greta: Ich fange nächsten Monat bei Miele an.", {"employer": "miele"}),
        ("Greta: Ich hab bei Lidl gekündigt.", {"employer": "not lidl"}),
        (
            "Greta: Ich arbeite als Hebamme im Kreiskrankenhaus.",
            {"occupation": "hebamme", "employer": "kreiskrankenhaus"},
        ),
        ("Greta: Ich bin inzwischen Schichtleiterin.", {"occupation": "schichtleiterin"}),
        (
            "Greta: Ich habe eine Stelle als Erzieherin in einer Kita bekommen.",
            {"occupation": "erzieherin", "employer": "kita"},
        ),
        ("Greta: Ich heiße Greta und wohne in Trier.", {"name": "greta", "residence": "trier"}),
        ("Greta: Ich bin 41 Jahre alt.", {"age": "41"}),
        ("Greta: Wir haben im Mai geheiratet.", {"relationship": "married"}),
        ("Greta: Mit Jannik ist es vorbei.", {"relationship": "single"}),
        ("Greta: Ich bin Veganerin.", {"diet": "vegan"}),
        ("Greta: Ich bin keine Vegetarierin mehr.", {"diet": "not vegetarisch"}),
        ("Greta: Ich mag keine Oliven mehr.", {"likes oliven": "no"}),
        ("Greta: Ich liebe Spargel.", {"likes spargel": "yes"}),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's name, age, partner, diet and a liking, in German."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    [
        "Greta: Wenn ich nach München ziehen würde, bräuchte ich mehr Geld.",  # a condition
        "Greta: Vielleicht wohnen wir bald in Ulm.",  # a maybe
        "Greta: Ich suche eine Stelle als Lehrerin.",  # a search, no post
        "Greta: Wohnst du noch in Kiel?",  # a question
        "Greta: Meine Schwester ist nach Bonn gezogen.",  # someone else
        "Greta: Wir sind im Urlaub nach Kreta geflogen.",  # a trip, no move
        "Greta: Ich lebe in ständiger Angst vor der Steuer.",
        "Greta: Ich arbeite heute im Homeoffice.",
        "Greta: Ich arbeite bei Regen ungern draußen.",
        "Greta: Mit dem Projekt ist es vorbei.",  # a project, no partner
        "Greta: Ich bin müde.",
    ],
)
def test_conditions_questions_others_and_idioms_state_nothing(text):
    """Sentences shaped like a statement of where one lives or works that state none of the speaker's."""
    assert statement(text).slots == {}


def test_a_subjunctive_idiom_does_not_make_a_statement_a_wish():
    """ "Wer hätte das gedacht" wishes nothing: the clause before it still states the post."""
    said = statement("Greta: ich bin seit märz teamleiterin, wer hätte das gedacht")
    assert said.slots == {"occupation": "teamleiterin"}
