"""English: how people stand to the user, as a question asks it and a fact says it ("his wife", "my sister Joana"),
and the names a fact gives them."""

from __future__ import annotations

import re

from kbsite.languages.reading import kin, kin_words

# How people stand to the user, as a question asks and a fact says it: each word by the relation it names (the
# relations are the same in every language's module: a question in one finds a relative named in another's facts).
KIN = kin(
    {
        "partner": "wife husband spouse partner girlfriend boyfriend fiance fiancee fiancé fiancée",
        "sister": "sister",
        "brother": "brother",
        "mother": "mum mom mother",
        "father": "dad father",
        "son": "son",
        "daughter": "daughter",
        "grandmother": "grandma grandmother nan gran",
        "grandfather": "grandpa grandfather",
        "aunt": "aunt",
        "uncle": "uncle",
        "cousin": "cousin",
        "niece": "niece",
        "nephew": "nephew",
        "boss": "boss",
        "flatmate": "flatmate roommate housemate",
    }
)
RELATIONS = frozenset(KIN)
# Words that name more than one relation, never carried to facts in another language: none.
AMBIGUOUS: frozenset[str] = frozenset()
# One's partner, by whatever title they had when named ("his wife" was "my fiancée Priya" a year before).
PARTNER = kin_words(KIN, "partner") | frozenset("gf bf".split())
# A question asking for one's partner by a verb, not a title ("Who is she married to?", "Is he seeing anyone?").
PARTNER_ASKED = re.compile(
    r"\b(?:married|dating|seeing (?:anyone|someone|somebody)|going out with|in a relationship)\b|"
    r"\bwho(?:'s| is) (?:\w+ ){1,2}seeing\b",
    re.I,
)
# Names never taken for a relative's: "my sister Is…" is no name.
NOT_NAMES = frozenset("i is was has and but the a an in at on who lives works".split())
WORD = re.compile(r"[\w'’é]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "my wife Priya", "Arjun's wife, Priya", "Priya, my wife"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-Z][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-Z][\w'-]+)),? (?:my|our|his|her|their) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
