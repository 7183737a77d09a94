"""Supersession: retiring (never deleting) the live facts that newer ones replace.

Two ways to know a fact is replaced:

- **named**: the LLM extractor names the fact each new one replaces (``Fact.supersedes``);
- **restated**, in both modes (offline it is the only way; with an LLM it catches what the model did not name): a
  person states again, with another value, an attribute that has one value at a time (what a text states is read
  by :mod:`memories.ingest.statements`). A fact is replaced only when everything it says is restated otherwise,
  so nothing else it says is retired with it.

Either way, the replaced fact's valid time ends where its replacement's begins. Of two restated facts, the one valid
earlier is retired, whatever order they came in (an old conversation imported late is retired itself).
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery
from django.db.models import F, Value
from django.db.models.functions import Greatest

from kbsite import languages
from kbsite.languages.fulltext import held, query_in
from kbsite.languages.reading import changes_of
from kbsite.models import KnowledgeBase, Mode
from memories import webhooks
from memories.ingest.changes import Change, changes
from memories.ingest.statements import Statement, clash, contradicts, statement_read
from memories.models import Memory
from memories.reviews.records import conflict_open, supersession_reviews
from memories.services import insights_retire, retirement_follow

SUPERSEDED = "superseded by a newer fact"

# --- Named (the LLM's) ------------------------------------------------------------------------------------------


def named_retire(kb: KnowledgeBase, end_user_id: int | None, new: list[tuple[Memory, int | None]], now) -> int:
    """Retire the live facts of the same owner that the new ones name as replaced (and what followed them).
    Returns how many."""
    retired: list[tuple[int, int]] = []
    for memory, old_id in new:
        if old_id is not None and _retire(Memory.objects.owned_by(end_user_id).filter(pk=old_id, kb=kb), memory, now):
            retired.append((old_id, memory.pk))
    retirement_follow([old for old, _ in retired], reason=SUPERSEDED, at=now)
    supersession_reviews(retired, reason=f"{SUPERSEDED} (named by the LLM)")
    webhooks.memories_superseded(retired, reason=f"{SUPERSEDED} (named by the LLM)")
    return len(retired)


def _retire(old, by: Memory, now, reason: str = SUPERSEDED) -> int:
    """Retire ``old`` (a queryset of one) if live: replaced by ``by``, its valid time ending where ``by``'s begins."""
    return old.filter(retired_at__isnull=True).update(
        retired_at=now,
        valid_to=Greatest(F("valid_from"), Value(by.valid_from or now)),
        superseded_by=by,
        retired_reason=reason[:200],
        updated_at=now,
    )


def restated(stated: Statement) -> str:
    """The reason a restated fact is retired with, naming what was restated (an operator sees why)."""
    return f"{SUPERSEDED} (restated: {', '.join(sorted(stated.slots))})"


# --- Restated ---------------------------------------------------------------------------------------------------


def _statement_of(memory: Memory) -> Statement:
    """What ``memory`` states: read when it was written, or now in its own language."""
    return statement_read(memory.text, memory.language, memory.reading)


def restated_retire(kb: KnowledgeBase, end_user_id: int | None, memories: list[Memory], now) -> int:
    """Each new memory (in order) against the same owner's live extracted facts about the same person stating the
    same attributes. Of two contradicting statements, the one valid earlier is retired, replaced by the
    other. Returns how many were retired."""
    retired: dict[int, tuple[int, str, str]] = {}  # id -> (replaced by, reason, the attributes restated)
    contradicted: list[int] = []  # the older facts of the open conflicts found
    for memory in memories:
        if memory.quarantined or memory.pk in retired:
            continue
        new = _statement_of(memory)
        if not new.slots:
            continue
        for old_memory in _earlier_statements(kb, end_user_id, memory, new):
            old = _statement_of(old_memory)
            later = _later_or_same(memory, old_memory)
            # Of two contradicting statements, the one valid earlier goes, replaced by the other.
            if later and contradicts(old, new):
                gone, by, stated = old_memory, memory, old
            elif not later and contradicts(new, old):
                gone, by, stated = memory, old_memory, new
            else:
                # Both stay live, each saying more than the one value: an open conflict if they disagree on it.
                if slot := clash(old, new):
                    older, newer = (old_memory, memory) if later else (memory, old_memory)
                    if conflict_open(older=older, newer=newer, attribute=slot):
                        contradicted.append(older.pk)
                continue
            why = restated(stated)
            if _retire(Memory.objects.filter(pk=gone.pk), by, now, why):
                retired[gone.pk] = (by.pk, why, ", ".join(sorted(stated.slots)))
            if gone is memory:
                break
    for reason, attribute in {(why, slots) for _, why, slots in retired.values()}:
        pairs = [(pk, by) for pk, (by, why, _) in retired.items() if why == reason]
        retirement_follow([pk for pk, _ in pairs], reason=reason, at=now)
        supersession_reviews(pairs, reason=reason, attribute=attribute)
        webhooks.memories_superseded(pairs, reason=reason)
    insights_retire(contradicted, reason=CONTRADICTED, at=now)
    return len(retired)


# An insight quoting a fact that a newer one contradicts would put the old value back into a bot's prompt.
CONTRADICTED = "a fact it quotes is contradicted by a newer one (an open conflict)"


def ended_conflicts(kb: KnowledgeBase, end_user_id: int | None, memories: list[Memory], now) -> int:
    """A new fact that says a thing has changed (:func:`~memories.ingest.changes.changes`: ended, "we sold the
    Clio", "I don't drink coffee anymore"; put to another time, "we pushed the trip to September"; done without,
    "walked without the stick") against the same owner's older live facts that it makes a thing of the past: each
    pair an open conflict for review (the block shows the older as what held earlier), and the insights quoting the
    older retired. Returns how many were opened."""
    opened: list[int] = []
    for memory in memories:
        if memory.quarantined:
            continue
        with languages.override(memory.language):  # the change is read, and compared, in its own language
            opened += _ended_by(kb, end_user_id, memory)
    insights_retire(opened, reason=CONTRADICTED, at=now)
    return len(opened)


def _ended_by(kb: KnowledgeBase, end_user_id: int | None, memory: Memory) -> list[int]:
    """The older facts ``memory`` says have changed, each made the older side of an open conflict."""
    opened = []
    for change in changes_of(memory.reading) if memory.reading else changes(memory.text):
        named = _naming(change, held([kb]))
        mentions = (
            Memory.objects.live()
            .owned_by(end_user_id)
            .filter(kb=kb, quarantined=False, pk__lt=memory.pk, search_vector=named)
            .only("id", "text", "kb_id", "end_user_id")
            .order_by("-id")[:50]
        )
        for older in mentions:
            if change.replaces(older.text) and conflict_open(
                older=older, newer=memory, attribute=f"{change.how}: {' '.join(sorted(change.thing))}"
            ):
                opened.append(older.pk)
    return opened


def _naming(change: Change, codes: list[str]) -> SearchQuery:
    """What finds the older facts a change may replace: for a retirement, those saying where or as what one works;
    else those naming the thing, or using it ("no car anymore": "I drive my Golf")."""
    words = languages.current().changes
    if change.how == "retired":
        return _any_word(set(words.WORK_WORDS), codes)
    query = _all_words(change.thing, codes)
    for use in words.USED.get(change.thing, ()):
        query |= _all_words(use, codes)
    return query


def _all_words(words: frozenset[str], codes: list[str]) -> SearchQuery:
    """Every word, or a longer one it begins ("fuji": "Fujifilm")."""
    terms = [re.sub(r"\W", "", word) for word in sorted(words)]
    return query_in(" & ".join(f"{t}:*" for t in terms if t), codes, search_type="raw")


def _later_or_same(new: Memory, old: Memory) -> bool:
    """Whether ``new`` is valid from no earlier than ``old`` (facts of unknown valid time count as new)."""
    return new.valid_from is None or old.valid_from is None or new.valid_from >= old.valid_from


def _earlier_statements(kb: KnowledgeBase, end_user_id: int | None, memory: Memory, new: Statement) -> list[Memory]:
    """The live extracted facts of the same owner written before ``memory`` that may state its attributes: about the
    same person (its name begins the text) and containing a word of those statements."""
    candidates = (
        Memory.objects.live()
        .owned_by(end_user_id)
        .filter(kb=kb, mode__in=[Mode.HEURISTIC, Mode.LLM], quarantined=False, pk__lt=memory.pk)
        .filter(search_vector=_any_word(new.hints, held([kb])))
    )
    if new.speaker:  # "Alice: I live…" or "Alice lives…"
        candidates = candidates.filter(text__istartswith=new.speaker)
    # The latest first.
    return list(candidates.only("id", "text", "valid_from", "language", "reading").order_by("-id")[:200])


def _any_word(words: set[str], codes: list[str]) -> SearchQuery:
    query = None
    for word in sorted(words):
        one = query_in(word, codes, search_type="plain")
        query = one if query is None else query | one
    return query
