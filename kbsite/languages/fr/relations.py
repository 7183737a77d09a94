"""French: how people stand to the user ("sa femme", "ma sœur Léa"), and the names a fact gives them."""

from __future__ import annotations

import re

RELATIONS = frozenset(
    "femme mari conjoint conjointe copain copine compagnon compagne fiancé fiancée sœur frère mère maman père papa "
    "fils fille grand-mère grand-père tante oncle cousin cousine chef cheffe colocataire coloc".split()
)
PARTNER = frozenset("femme mari conjoint conjointe copain copine compagnon compagne fiancé fiancée".split())
NOT_NAMES = frozenset("je est était et mais le la les un une en habite travaille".split())
WORD = re.compile(r"[\w'’-]+")


def names_given(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "ma sœur Léa", "Léa, ma sœur"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-ZÀ-Ý][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-ZÀ-Ý][\w'-]+)),? (?:mon|ma|notre|son|sa) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in NOT_NAMES]
