"""French statements read offline (kbsite/languages/fr/statements.py): what a statement says of one person's
one-valued attributes, in their own words or an LLM's; what has the shape of one and says nothing. Sentences of our
own."""

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
        ("Inès: J'habite Nantes depuis trois ans.", {"residence": "nantes"}),
        ("Inès: On a enfin déménagé à Bordeaux !", {"residence": "bordeaux"}),
        ("Inès: on vient d'emménager à Metz", {"residence": "metz"}),
        ("Inès: je suis partie vivre à Montréal l'an dernier", {"residence": "montréal"}),
        ("Inès: j'habite dans un petit appart à Laval", {"residence": "laval"}),
        ("Inès: les cartons de notre nouvel appart à Rennes sont partout", {"residence": "rennes"}),
        ("Inès habite à Bordeaux.", {"residence": "bordeaux"}),  # an LLM's fact, in the third person
        ("Claire s'est installée à Nantes.", {"residence": "nantes"}),
        ("Claire a déménagé à La Rochelle.", {"residence": "rochelle"}),
        ("Marc: Je bosse comme cuisinier dans une brasserie.", {"occupation": "cuisinier", "employer": "brasserie"}),
        ("Marc: Je bosse en tant que dev chez Ubisoft", {"occupation": "dev", "employer": "ubisoft"}),
        ("Marc: Je suis prof des écoles à Vénissieux", {"occupation": "prof des écoles", "employer": "vénissieux"}),
        ("Marc: J'ai été promue cheffe d'équipe", {"occupation": "cheffe d'équipe"}),
        ("Marc: J'ai été embauché chez Michelin", {"employer": "michelin"}),
        ("Marc: J'ai commencé chez Decathlon lundi", {"employer": "decathlon"}),
        ("Marc: J'ai démissionné de la Poste.", {"employer": "not poste"}),
        ("Marc: j'ai quitté mon boulot chez Orange", {"employer": "not orange"}),
        ("Marc: J'ai 38 ans.", {"age": "38"}),
        ("Marc: Je suis végétarienne depuis 2021.", {"diet": "végétarien"}),
        ("Marc: je ne suis plus vegan", {"diet": "not végan"}),
        ("Marc: Je suis plus végé, j'ai recommencé à manger de la viande", {"diet": "omnivore"}),
        ("Claire n'est plus végétarienne.", {"diet": "not végétarien"}),
        ("Marc: Avec Léa on s'est mariés en juin", {"relationship": "married"}),
        ("Marc: On a rompu la semaine dernière", {"relationship": "single"}),
        ("Marc: mon copain Hugo est nul en cuisine", {"relationship": "dating"}),
        ("Marc: J'adore les madeleines", {"likes madeleines": "yes"}),
        ("Marc: moi c'est Julie", {"name": "julie"}),
        # Two clauses of one's own joined by "et": both read; an "et" inside a value parts nothing.
        ("Inès: Je m'appelle Inès et j'habite à Pau.", {"name": "inès", "residence": "pau"}),
        ("Inès: J'aime le pain et le fromage.", {}),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's age, diet, partner, name and a liking, in French: "je" elided or not,
    "on" for a couple, an LLM's third person read as the first."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    [
        "Inès: J'ai quitté Paris en mars.",  # a city left, no job
        "Inès: Je travaille à la maison le lundi.",
        "Inès: Je bosse comme un fou en ce moment.",
        "Inès: Je travaille pour payer mes études.",
        "Inès: J'habite à deux pas du marché.",
        "Inès: J'habite en coloc.",
        "Inès: On habite à la campagne.",
        "Inès: J'ai commencé à courir le dimanche.",
        "Inès: J'ai commencé à la fac en septembre.",
        "Inès: Moi c'est les tuyaux.",
        "Inès: Ma sœur habite à Brest.",
        "Inès: Tu habites à Nice ?",
        "Inès: Si j'habitais à Nice, je serais ravie.",
        "Inès: J'aimerais travailler chez Airbus.",
        "Inès: On pense à déménager à Lille.",
    ],
)
def test_idioms_others_questions_and_wishes_state_nothing(text):
    """Sentences shaped like a statement of where one lives or works, as what, or one's name that state none: a
    place left, at home, how hard, what for, how near, a studies' start, a sister's home, a question, a wish."""
    assert statement(text).slots == {}


def test_a_turn_of_no_named_speaker_is_read_as_the_speakers_own_words():
    """Posted with no speaker's name, a sentence about someone else states nothing of the speaker, and "Il a plu…"
    names no one."""
    assert reading("Je travaille chez Ubisoft.", "fr", own=True)["slots"] == {"employer": "ubisoft"}
    assert reading("Ma sœur habite à Brest.", "fr", own=True)["slots"] == {}
    assert statement("Il a plu toute la journée.").speaker == ""
