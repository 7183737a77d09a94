"""Portuguese: how people stand to the user ("a mulher dele", "a minha irmã Rita"), and the names a fact gives
them."""

from __future__ import annotations

import re

from kbsite.languages.reading import kin, kin_words

# How people stand to the user, as a question asks and a fact says it: each word by the relation it names (the
# relations are the same in every language's module: a question in one finds a relative named in another's facts).
KIN = kin(
    {
        "partner": "mulher marido esposa esposo companheiro companheira namorado namorada noivo noiva",
        "sister": "irmã",
        "brother": "irmão",
        "mother": "mãe mamãe",
        "father": "pai papai",
        "son": "filho",
        "daughter": "filha",
        "grandmother": "avó",
        "grandfather": "avô",
        "aunt": "tia",
        "uncle": "tio",
        "cousin": "primo prima",
        "boss": "chefe",
        "colleague": "colega",
    }
)
RELATIONS = frozenset(KIN)
# Words that name more than one relation, never carried to facts in another language: none.
AMBIGUOUS: frozenset[str] = frozenset()
PARTNER = kin_words(KIN, "partner")
# Uma pergunta pelo parceiro com um verbo ("com quem ela é casada?", "ele está namorando?").
PARTNER_ASKED = re.compile(r"\b(?:casad[oa]s?|namorando|namora|num relacionamento)\b", re.I)
NOT_NAMES = frozenset("eu é era e mas o a os as um uma em mora trabalha".split())
WORD = re.compile(r"[\w'’-]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "a minha irmã Rita", "Rita, minha irmã"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-ZÀ-Ý][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-ZÀ-Ý][\w'-]+)),? (?:a |o )?(?:meu|minha|nosso|nossa) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
