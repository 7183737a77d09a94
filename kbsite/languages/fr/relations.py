"""French: how people stand to the user ("sa femme", "ma sœur Léa"), and the names a fact gives them."""

from __future__ import annotations

import re

from kbsite.languages.reading import kin, kin_words

# How people stand to the user, as a question asks and a fact says it: each word by the relation it names (the
# relations are the same in every language's module: a question in one finds a relative named in another's facts).
KIN = kin(
    {
        "partner": "femme mari conjoint conjointe copain copine compagnon compagne fiancé fiancée",
        "sister": "sœur",
        "brother": "frère",
        "mother": "mère maman",
        "father": "père papa",
        "son": "fils",
        "daughter": "fille",
        "grandmother": "grand-mère",
        "grandfather": "grand-père",
        "aunt": "tante",
        "uncle": "oncle",
        "cousin": "cousin cousine",
        "boss": "chef cheffe",
        "flatmate": "colocataire coloc",
    }
)
RELATIONS = frozenset(KIN)
# Words that name a friend or a partner: read as said, never carried to facts in another language.
AMBIGUOUS = frozenset("copain copine".split())
PARTNER = kin_words(KIN, "partner")
# Une question sur le ou la partenaire par un verbe ("avec qui est-elle mariée ?", "il sort avec quelqu'un ?").
PARTNER_ASKED = re.compile(r"\b(?:mariée?s?|sort avec|en couple)\b", re.I)
NOT_NAMES = frozenset("je est était et mais le la les un une en habite travaille".split())
WORD = re.compile(r"[\w'’-]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "ma sœur Léa", "Léa, ma sœur"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-ZÀ-Ý][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-ZÀ-Ý][\w'-]+)),? (?:mon|ma|notre|son|sa) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
