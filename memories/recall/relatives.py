"""People a question names by how they stand to the user ("what does his wife do?"), found by name in the user's own
facts ("Arjun's wife Priya", "my sister Joana"), so that what is said of them by name is searched too.

A fact about the wife names her ("Priya is a dentist"), not "wife": the question and its answer share no word, and
the sentence embedding barely ranks it. The user's facts that name her relation give her name, one query away.
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery

from kbsite.ai.fulltext import FTS_CONFIG
from memories.models import Memory
from memories.recall.concepts import concept_words

# How people stand to the user, as a question asks and a fact says it.
RELATIONS = frozenset(
    "wife husband spouse partner girlfriend boyfriend fiance fiancee fiancé fiancée sister brother mum mom mother dad "
    "father son daughter grandma grandmother grandpa grandfather nan gran aunt uncle cousin niece nephew boss flatmate "
    "roommate housemate".split()
)
# One's partner, by whatever title they had when named ("his wife" was "my fiancée Priya" a year before).
_PARTNER = frozenset("wife husband spouse partner girlfriend boyfriend fiance fiancee fiancé fiancée gf bf".split())
# Names never taken for a relative's: "my sister Is…" is no name.
_NOT_NAMES = frozenset("i is was has and but the a an in at on who lives works".split())
FACTS_READ = 50


def subject_words(query: str, end_user_id: int | None) -> list[str]:
    """What a question about one end user is also searched for: the words of the subjects it asks about ("tell me
    about the family": "sister") and the names of the people it names by relation ("his wife": "priya"). The user's
    own facts are about them; shared knowledge, about anyone, is not widened (no end user: none)."""
    if end_user_id is None:
        return []
    return concept_words(query) + relatives_named(query, end_user_id)


def relatives_named(query: str, end_user_id: int | None) -> list[str]:
    """The names (lower case) of the people ``query`` names by their relation to the end user, as the user's live
    facts name them; none for a query naming no relation, or of no end user."""
    asked = {word for word in re.findall(r"[\w'’é]+", query.lower()) if word in RELATIONS}
    if not asked or end_user_id is None:
        return []
    if asked & _PARTNER:
        asked |= _PARTNER
    terms = " | ".join(sorted(asked))
    texts = (
        Memory.objects.live()
        .filter(end_user_id=end_user_id, search_vector=SearchQuery(terms, search_type="raw", config=FTS_CONFIG))
        .order_by("-id")
        .values_list("text", flat=True)[:FACTS_READ]
    )
    names: list[str] = []
    for text in texts:
        for relation in asked:
            for name in _named(text, relation):
                if name not in names:
                    names.append(name)
    return names[:3]


def _named(text: str, relation: str) -> list[str]:
    """The names ``text`` gives someone of ``relation``: "my wife Priya", "Arjun's wife, Priya", "Priya, my wife"."""
    after = re.findall(rf"\b{relation},? (?-i:([A-Z][\w'-]+))", text, re.I)
    before = re.findall(rf"(?-i:([A-Z][\w'-]+)),? (?:my|our|his|her|their) {relation}\b", text, re.I)
    return [name.lower() for name in after + before if name.lower() not in _NOT_NAMES]
