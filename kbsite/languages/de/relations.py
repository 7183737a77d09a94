"""German: how people stand to the user ("seine Frau", "meine Schwester Lena"), and the names a fact gives them."""

from __future__ import annotations

import re

from kbsite.languages.reading import kin, kin_words

# How people stand to the user, as a question asks and a fact says it: each word by the relation it names (the
# relations are the same in every language's module: a question in one finds a relative named in another's facts).
KIN = kin(
    {
        "partner": "frau mann ehefrau ehemann partner partnerin freund freundin verlobter verlobte",
        "sister": "schwester",
        "brother": "bruder",
        "mother": "mutter mama",
        "father": "vater papa",
        "son": "sohn",
        "daughter": "tochter",
        "grandmother": "oma",
        "grandfather": "opa",
        "aunt": "tante",
        "uncle": "onkel",
        "cousin": "cousin cousine",
        "boss": "chef chefin",
        "flatmate": "mitbewohner mitbewohnerin",
    }
)
RELATIONS = frozenset(KIN)
# Words that name a friend or a partner: read as said, never carried to facts in another language.
AMBIGUOUS = frozenset("freund freundin".split())
PARTNER = kin_words(KIN, "partner")
# Eine Frage nach dem Partner mit einem Verb ("Mit wem ist sie verheiratet?", "Ist er mit jemandem zusammen?").
PARTNER_ASKED = re.compile(r"\b(?:verheiratet|zusammen mit|in einer beziehung)\b", re.I)
NOT_NAMES = frozenset("ich ist war und aber der die das ein eine in wohnt arbeitet".split())
WORD = re.compile(r"[\w'’]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "meine Schwester Lena", "Lena, meine Schwester"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-ZÄÖÜ][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-ZÄÖÜ][\w'-]+)),? (?:mein|meine|unser|unsere|sein|seine|ihr|ihre) {relation}\b",
                        text, re.I)  # fmt: skip
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
