"""People a question names by how they stand to the user ("what does his wife do?"), found by name in the user's own
facts ("Arjun's wife Priya", "my sister Joana"), so that what is said of them by name is searched too.

A fact about the wife names her ("Priya is a dentist"), not "wife": the question and its answer share no word, and
the sentence embedding barely ranks it. The user's facts that name her relation give her name, one query away.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.postgres.search import SearchQuery

from kbsite import languages
from kbsite.languages.fulltext import RowConfig
from kbsite.languages.reading import kin_words
from memories.models import Memory
from memories.recall.concepts import concept_words

FACTS_READ = 50


def subject_words(query: str, end_user_id: int | None, also: Iterable[str] = ()) -> list[str]:
    """What a question about one end user is also searched for: the words of the subjects it asks about ("tell me
    about the family": "sister"; in each language of ``also`` too, those the facts are in) and the names of the
    people it names by relation ("his wife": "priya"). The user's own facts are about them; shared knowledge, about
    anyone, is not widened (no end user: none)."""
    if end_user_id is None:
        return []
    return concept_words(query, also) + relatives_named(query, end_user_id, also)


def relatives_named(query: str, end_user_id: int | None, also: Iterable[str] = ()) -> list[str]:
    """The names (lower case) of the people ``query`` names by their relation to the end user, as the user's live
    facts name them, in the question's language and in each language of ``also`` (those the facts are in: "el marido
    de Paz" finds "my husband Rodrigo"); one's partner asked by a verb too ("Who is she married to?"); none for a
    query naming no relation, or of no end user."""
    words = languages.current().relations
    asked = {word for word in words.WORD.findall(query.lower()) if word in words.RELATIONS}
    if words.PARTNER_ASKED.search(query):  # "Who is she married to?": her partner, by whatever title named
        asked |= kin_words(words.KIN, "partner") - words.AMBIGUOUS
    if not asked or end_user_id is None:
        return []
    relations = {words.KIN[word] for word in asked - words.AMBIGUOUS}  # "Freundin" is carried to no other language
    names = _named_by(words, asked, end_user_id)
    current = languages.current_code()
    for code in dict.fromkeys(also):
        if code and code != current and code in languages.READ:
            theirs = languages.get(code).relations
            said = {word for word, relation in theirs.KIN.items() if relation in relations} - theirs.AMBIGUOUS
            if said:  # a relation the language has no word of (German: a niece) asks nothing of its facts
                names += [name for name in _named_by(theirs, said, end_user_id, carried=True) if name not in names]
    return names[:3]


def _named_by(words, asked: set[str], end_user_id: int, carried: bool = False) -> list[str]:
    """The names the user's live facts give the people of the relations ``asked`` (words of the language whose
    relations module is ``words``); a partner by whatever title they had when named (asked in another language,
    ``carried``: by none of the titles that also name a friend)."""
    if asked & words.PARTNER:
        asked = asked | (words.PARTNER - words.AMBIGUOUS if carried else words.PARTNER)
    terms = " | ".join(sorted(asked))
    texts = (
        Memory.objects.live()
        .filter(end_user_id=end_user_id, search_vector=SearchQuery(terms, search_type="raw", config=RowConfig()))
        .order_by("-id")
        .values_list("text", flat=True)[:FACTS_READ]
    )
    names: list[str] = []
    for text in texts:
        for relation in asked:
            for name in words.names_given(text, relation):
                if name not in names:
                    names.append(name)
    return names[:3]
