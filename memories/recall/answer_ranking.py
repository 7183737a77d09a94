"""Ask's offline ranking: how likely each statement of the block answers the question, as a weighted sum of what it
shares with it.

Each statement the block holds for a question is described by the same few measures, none of them a word of any
case: the words it shares with the question (and how rare they are among the block's statements), the attribute it
states that the question asks for, its closeness in meaning (and how far above the block's usual), whether it names
a time when asked when (or a place, asked where: kbsite.languages.places), how late it was said when asked how
things stand now (or how early, asked how they were before), its place in the block, whether it only asks, whether
it answers the bot's question, whether it names someone or something by name or a number. ``WEIGHTS`` weighs them:
fitted by ``python -m benchmarks ask_weights`` on the truth and language development sets (never the sealed ones),
each set's figure measured with the weights fitted on the others (docs/benchmarks.md#ask_weights).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kbsite import languages
from kbsite.languages.reading import places_said
from kbsite.languages.text import asks_before, compound_heads
from memories.ingest.changes import names_a_time
from memories.ingest.statements import statement_read
from memories.recall.concepts import concept_words, slots_asked
from memories.recall.hits import Hit
from memories.text import ANSWERING, SENTENCE, content_words, stems

# Fitted by `python -m benchmarks ask_weights` (each measure as `Candidate.measures` gives it).
WEIGHTS = {
    "matched": 0.528,
    "stated": 1.149,
    "timed": 2.83,
    "close": 2.51,
    "above_usual": 4.999,
    "later": 3.492,
    "earlier": -7.125,
    "words": 0.398,
    "place": -0.368,
    "asking": -1.142,
    "profile": 0.896,
    "answering": -0.226,
    "joined": 0.605,
    "named": 0.552,
    "number": 0.75,
    "length": 1.217,
    "rare": 0.098,
    "names_place": 0.696,
}

# A statement sharing no word with the question, stating nothing it asks, is an answer only this close in meaning:
# on sentences of our own, chat about toast, rain or tidying is 0.17-0.24 similar to a question it does not answer,
# "I'm a self-employed plumber" 0.30 to "How does she make a living?" (all-MiniLM-L6-v2).
ANSWER_MEANING_FLOOR = 0.25
# ... and this much closer than the median statement of the block, where it holds enough to tell.
ANSWER_MEANING_MARGIN = 0.1
# Below this many statements in the block, closeness alone cannot be told from the usual: in a user's first minutes,
# a statement answers by meaning alone only when none shares a word or an attribute with the question. (In French,
# multilingual-e5-small puts "Il pleut encore ici" closer to "Est-il encore boulanger ?" than "Je suis boulanger à
# Nantes": 0.60 against 0.53, scaled.)
ANSWER_USUAL_FROM = 8
# A statement scoring this far above every statement that answers by what it shares with the question (or by meaning)
# answers too. On the read truth and language sets (stop 70), best-ranked statements that name the fact: 662 of 1,298
# keeping only those that answer, 670 with this margin, 664 at 0.25, 655 at 0.
ANSWER_RANK_MARGIN = 0.5
# A word opening with a capital inside a sentence (a name: "Manchester", "Oliver", "Fabia").
NAMED = re.compile(r"(?<=[\w,;] )[^\W\d_][\w'-]*", re.UNICODE)
NUMBER = re.compile(r"\d")
# A word no pattern names: put in place of one, it tells whether a pattern names that word or only spans it (\w+).
ANY_WORD = "qqqq"


@dataclass(frozen=True)
class Question:
    """A question as ask reads it: the words it wants (with those of the subjects it asks about and the names of
    the relatives it names), the attributes it asks for, whether it asks when, how things stand now, or how they
    were before, and whether it asks about a person (``person``: one named by a pronoun, "the user", or the end user
    by their id; not the asker's own "I", which asks about the world too)."""

    wanted: frozenset[str]
    slots: frozenset[str]
    when: bool
    where: bool
    now: bool
    before: bool
    person: bool = False

    @classmethod
    def read(
        cls, question: str, names: list[str] = (), also: Iterable[str] = (), user_id: str | None = None
    ) -> Question:
        """``question`` read in the language in force; ``also``, the languages of the statements it is compared
        with (the words of the subjects it asks about are wanted in each); ``user_id``, the end user it is asked
        for, as the bot names them."""
        lang = languages.current().words
        before = asks_before(question)
        return cls(
            wanted=frozenset(stems(_asked_words(question) + concept_words(question, also) + list(names))),
            slots=frozenset(slots_asked(question)),
            when=lang.WHEN.search(question) is not None,
            where=lang.WHERE.search(question) is not None,
            now=not before and (lang.NOW.search(question) or lang.CURRENT.search(question)) is not None,
            before=before,
            person=lang.PERSON.search(question) is not None or _named_by_id(question, user_id),
        )


@dataclass
class Candidate:
    """A statement of the block (``pk``, of ``hit``), what it answers of the question, its measures and score."""

    hit: Hit
    pk: int
    text: str
    rank: int
    answered: frozenset[str] = frozenset()
    # It answers at all: shares a word or an attribute, names a time or place asked, or is close enough in meaning
    # (in a block of few statements, only when none shares a word or an attribute), or scores ANSWER_RANK_MARGIN
    # above every statement that answers so.
    answers: bool = False
    measures: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


def ranked(asked: Question, statements: list[tuple[int, Hit, int, str]], close: dict[int, float], profile: set[int]):
    """``statements`` (rank, hit, pk, text: the block's, in its order) measured and scored against ``asked``, best
    first; ``close``: each one's closeness in meaning to the question; ``profile``: the ids of the profile's hits.
    Each says whether it answers at all: by a word or an attribute it shares with the question, a time or place
    asked for, its closeness in meaning, or a score clearly above every statement that answers so."""
    texts = [text for _, _, _, text in statements]
    words_of = [
        stems(said, hit.language) | compound_heads(said, hit.language)
        for (_, hit, _, _), said in zip(statements, map(content_words, texts), strict=True)
    ]
    common = _common(words_of)
    wanted = asked.wanted - common
    seen_in = Counter(word for words in words_of for word in words)
    usual = statistics.median(close.values()) if close else 0.0
    floor = max(ANSWER_MEANING_FLOOR, usual + ANSWER_MEANING_MARGIN if len(close) >= ANSWER_USUAL_FROM else 0.0)
    days = sorted({said(hit) for _, hit, _, _ in statements})
    lateness = {when: n / max(1, len(days) - 1) for n, when in enumerate(days)}
    lang = languages.current().words
    out = []
    for (rank, hit, pk, text), words in zip(statements, words_of, strict=True):
        matched = wanted & words
        read = statement_read(text, hit.language, hit.reading if pk == hit.id else None)
        stated = asked.slots & set(read.slots)
        timed = asked.when and (names_a_time(text) or lang.RELATIVE_TIME.search(text) is not None)
        placed = asked.where and bool(_places(hit, pk, text, read.speaker))
        said_at = lateness.get(said(hit), 0.0)
        body = text.split(ANSWERING, maxsplit=1)[0]  # not the bot's question a short answer keeps
        measures = {
            "matched": min(len(matched), 3),
            "stated": len(stated),
            "timed": float(timed),
            "names_place": float(placed),
            "close": close.get(pk, 0.0),
            "above_usual": close.get(pk, 0.0) - usual,
            "later": said_at if asked.now else 0.0,
            "earlier": said_at if asked.before else 0.0,
            "words": min(len(words), 6),
            "place": rank / 10,
            "asking": float(asking(text)),
            "profile": float(hit.id in profile),
            "answering": float(body != text),
            "joined": float(pk != hit.id),
            "named": min(len(_named(body, hit)), 3),
            "number": float(NUMBER.search(body) is not None),
            "length": len(text) / 200,
            "rare": sum(math.log(len(texts) / seen_in[word]) for word in matched),
        }
        replaces = pk == hit.id and "replaces" in hit.signals  # replaced a fact the question matched
        out.append(
            Candidate(
                hit=hit,
                pk=pk,
                text=text,
                rank=rank,
                answered=frozenset(matched | stated),
                answers=bool(matched or stated or timed or placed or replaces),
                measures=measures,
                score=sum(WEIGHTS[name] * value for name, value in measures.items()),
            )
        )
    few = len(statements) < ANSWER_USUAL_FROM
    if not (few and any(c.answered for c in out)):  # by meaning alone, as close as the floor
        for c in out:
            c.answers = c.answers or close.get(c.pk, 0.0) >= floor
    out.sort(key=lambda c: -c.score)
    _answering_by_rank(out)
    return out


def _answering_by_rank(candidates: list[Candidate]) -> None:
    """What the ranking puts clearly above every statement that answers by what it shares answers too: the ranking
    weighs what no shared word tells ("What car does he drive now?": "picked up a used Ioniq yesterday"). Where none
    answers so, none does by its score alone: ask then does not remember, rather than quote small talk."""
    if (best := next((c.score for c in candidates if c.answers), None)) is not None:
        for c in candidates:
            c.answers = c.answers or c.score >= best + ANSWER_RANK_MARGIN


def _asked_words(question: str) -> list[str]:
    """The question's content words but those that only frame it ("anything", "should know") or only say when it
    asks about ("still", "these days", "encore", "noch", "before"): what it asks about."""
    framing = languages.current().words.FRAMING | _timing_words(question)
    return [word for word in content_words(question) if word not in framing]


def _timing_words(question: str) -> frozenset[str]:
    """The words of ``question`` that its language's "now", "current" and "before" patterns match ("is he still a
    trucker?": "still"), but a word such a pattern only spans ("ne mange plus": "mange", what is asked)."""
    lang = languages.current().words
    out = set()
    for pattern in (lang.NOW, lang.CURRENT, lang.BEFORE):
        for match in pattern.finditer(question):
            span = match.group(0)
            for word in content_words(span):
                other = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", ANY_WORD, span, flags=re.I)
                if pattern.fullmatch(other) is None:  # the pattern names the word, it does not only span it
                    out.add(word)
    return frozenset(out)


def _named_by_id(question: str, user_id: str | None) -> bool:
    """Whether ``question`` names the end user by their id ("Where does alice live?")."""
    return bool(user_id) and re.search(rf"(?<!\w){re.escape(user_id)}(?!\w)", question, re.I) is not None


def _places(hit: Hit, pk: int, text: str, speaker: str) -> list[str]:
    """The places the statement names, but its ``speaker``'s name: its stored reading's (read once, at ingest), or
    read now for a statement of a turn joined to the hit (its reading is its own memory's, not loaded) or a reading
    stored before readings held places."""
    if pk == hit.id and "places" in hit.reading:
        return hit.reading["places"]
    return places_said(text, speaker)


def _named(body: str, hit: Hit) -> list[str]:
    """The words of ``body`` that name someone or something (a capital inside a sentence), but whom the statement is
    about."""
    if getattr(languages.get(hit.language or languages.current_code()).words, "NOUNS_CAPITALISED", False):
        return []  # every noun has a capital (German): a capital names no one
    about = {e.lower() for e in hit.entities[:1]}
    capitalised = languages.current().words.CAPITALISED
    return [
        w
        for w in NAMED.findall(body)
        if w[:1].isupper() and w.lower() not in about and w.split("'")[0] not in capitalised
    ]


def _common(words_of: list[frozenset[str]]) -> frozenset[str]:
    """The words in more than half of four or more statements (the name of whom they are about): they tell none
    of them apart."""
    if len(words_of) < 4:
        return frozenset()
    counts = Counter(word for words in words_of for word in words)
    return frozenset(word for word, n in counts.items() if n > len(words_of) / 2)


def asking(text: str) -> bool:
    """Whether every sentence of ``text`` asks (a short answer keeps its question after it, and states)."""
    return all(sentence.rstrip().endswith("?") for sentence in SENTENCE.split(text))


def said(hit: Hit) -> datetime:
    return hit.valid_from or hit.created_at or datetime.min.replace(tzinfo=UTC)
