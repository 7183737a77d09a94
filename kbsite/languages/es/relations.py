"""Spanish: how people stand to the user, as a question asks it and a fact says it ("su mujer", "mi hermana
Joana"), and the names a fact gives them."""

from __future__ import annotations

import re

from kbsite.languages.reading import kin, kin_words

# How people stand to the user, as a question asks and a fact says it: each word by the relation it names (the
# relations are the same in every language's module: a question in one finds a relative named in another's facts).
KIN = kin(
    {
        "partner": "mujer marido esposo esposa pareja novio novia prometido prometida",
        "sister": "hermana",
        "brother": "hermano",
        "mother": "madre mamá",
        "father": "padre papá",
        "son": "hijo",
        "daughter": "hija",
        "grandmother": "abuela",
        "grandfather": "abuelo",
        "aunt": "tía",
        "uncle": "tío",
        "cousin": "prima primo",
        "niece": "sobrina",
        "nephew": "sobrino",
        "boss": "jefe jefa",
        "colleague": "compañera compañero",
        "mother-in-law": "suegra",
        "father-in-law": "suegro",
    }
)
RELATIONS = frozenset(KIN)
# Words that name a flatmate or a colleague: read as said, never carried to facts in another language.
AMBIGUOUS = frozenset("compañera compañero".split())
# One's partner, by whatever title they had when named.
PARTNER = kin_words(KIN, "partner") | frozenset("chico chica".split())
# Una pregunta por la pareja con un verbo, no un título ("¿con quién está casada?", "¿sale con alguien?").
PARTNER_ASKED = re.compile(r"\b(?:casad[oa]s?|sale con|saliendo con|en pareja|con quién está)\b", re.I)
# Names never taken for a relative's.
NOT_NAMES = frozenset("yo es era y pero el la un una en que vive trabaja se".split())
WORD = re.compile(r"[\w'’]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "mi hermana Ana", "Ana, mi hermana", "la mujer de Arjun,
    Priya"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-ZÁÉÍÓÚÑ][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-ZÁÉÍÓÚÑ][\w'-]+)),? (?:mi|nuestr[oa]|su) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
