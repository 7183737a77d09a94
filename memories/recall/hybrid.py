"""Hybrid recall: the full-text and vector ranked lists fused, weighted, supplemented and packed under a budget."""

from __future__ import annotations

import contextvars
import functools
import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime

from django.db import transaction

from kbsite import languages
from kbsite.ai import embeddings
from kbsite.ai.fusion import Fusion, pack
from kbsite.ai.vectors import as_vectors, vector_literal
from kbsite.languages.detection import detect, query_language
from kbsite.languages.fulltext import held
from kbsite.models import KnowledgeBase
from kbsite.replicas import reads
from kbsite.stats import stats_add
from memories.multilingual import kbs_asked_in
from memories.recall.fulltext import fts_ranked
from memories.recall.hits import Hit, hits_load, merged_by_turn, sources_attach
from memories.recall.neighbours import conversation_context, supplements_find, turn_context
from memories.recall.query import ParsedQuery, query_parse
from memories.recall.replaced import replacements_fuse
from memories.recall.scope import Scope, Table
from memories.recall.turns import covered_merged, turn_hits_load, turns_searched
from memories.recall.vector import multilingual_ranked, vector_ranked
from memories.recall.weights import (
    CANDIDATES,
    CONCEPT_WEIGHT,
    CONTEXT_WEIGHT,
    DATE_WEIGHT,
    FTS_WEIGHT,
    KIND_WEIGHT,
    PLACE_CANDIDATES,
    PLACE_WEIGHT,
    SUBJECT_WEIGHT,
    TABLE_WEIGHT,
    VECTOR_WEIGHT,
)

# Under ``limits``, a turn takes a place and a share of the budget as a memory does.
SHARE = {"turn": "memory"}


@dataclass(frozen=True)
class RecallQuery:
    """What a recall is asked: the text, where (``kbs``), for whom (``end_user_id``: that end user's own rows and
    the shared ones; None: the shared ones only), how much (``k`` and ``budget_chars``, or per type of hit in
    ``limits``: "memory" and "insight" each under its own (k, budget), one search for a context block's memories
    and its insights), and which rows: ``kinds`` (memory kinds and "insight"), ``as_of`` (valid time: the facts
    true in the world then), ``known_at`` (system time: what kbsite knew then), ``metadata`` (the memories whose
    metadata holds all its keys and values; no insight: they carry none), ``exclude_session`` (leave out what was
    drawn from that session's turns). ``query_vector`` may be the query's embedding, or that embedding under way
    (:func:`query_embedding`'s future); ``multilingual_vector``, its multilingual one under way
    (:func:`multilingual_embedding`'s; else recall computes it where it is wanted)."""

    kbs: tuple[KnowledgeBase, ...]
    text: str
    k: int = 10
    budget_chars: int | None = None
    end_user_id: int | None = None
    exclude_session: str | None = None
    kinds: tuple[str, ...] | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None
    metadata: dict | None = None
    include_insights: bool = True
    supplements: bool = True
    limits: dict[str, tuple[int, int | None]] | None = None
    query_vector: object = None
    multilingual_vector: Future | None = None

    @functools.cached_property
    def parsed(self) -> ParsedQuery:
        """The question read once, in its own language, for everything that reads it (recall, the block)."""
        with languages.override(self.language):
            return query_parse(self.text, self.end_user_id, held(self.kbs))

    def scope(self) -> Scope:
        return Scope(
            kb_ids=tuple(kb.pk for kb in self.kbs),
            as_of=self.as_of,
            known_at=self.known_at,
            kinds=tuple(x for x in self.kinds or () if x != "insight") or None,
            exclude_session=self.exclude_session,
            end_user_id=self.end_user_id,
            metadata=json.dumps(self.metadata, sort_keys=True) if self.metadata else None,
        )

    @functools.cached_property
    def language(self) -> str:
        """The language the query is read in (:func:`kbsite.languages.detection.query_language`)."""
        return query_language(self.text, self.kbs)

    @property
    def wants_memories(self) -> bool:
        return not self.kinds or any(x != "insight" for x in self.kinds)

    @property
    def wants_insights(self) -> bool:
        kinds_ok = not self.kinds or "insight" in self.kinds
        return self.include_insights and kinds_ok and not self.exclude_session and not self.metadata


def recall(q: RecallQuery) -> list[Hit]:
    """Ranked, budget-packed memories (and insights) for the query ``q``, each with the signals that found it and,
    once packed, its sources."""
    with languages.override(q.language):  # the question is read in its own language
        return _recall(q)


def _recall(q: RecallQuery) -> list[Hit]:
    # The query is embedded on another thread while the database does the full-text part (``query_vector`` may be
    # that embedding under way: query_embedding's).
    query_vector = q.query_vector
    embedding = query_embedding(q.text) if query_vector is None else None
    if isinstance(query_vector, Future):
        embedding, query_vector = query_vector, None
    scope = q.scope()
    turns = q.wants_memories and turns_searched(scope.kb_ids)
    tables = _tables(scope, q.wants_memories, q.wants_insights, turns)
    memories = tables[0] if q.wants_memories else None
    kbs, k, budget_chars, limits = list(q.kbs), q.k, q.budget_chars, q.limits
    parsed = q.parsed
    second = (q.multilingual_vector or multilingual_embedding(q.text, kbs)) if memories else None
    fusion, similarity = _direct(kbs, tables, parsed, embedding, query_vector, second)
    if memories:
        replacements_fuse(fusion, memories)  # before the neighbours: they are of the facts that hold
    if memories and CONTEXT_WEIGHT:
        conversation_context(fusion, memories)
        if turns:
            turn_context(fusion, next(t for t in tables if t.type == "turn"))
    kb_names = {kb.pk: kb.name for kb in kbs}
    found = hits_load(fusion.scores.keys(), kb_names) | turn_hits_load(
        [pk for t, pk in fusion.scores if t == "turn"], kb_names
    )
    direct = merged_by_turn(covered_merged(_weighed(found, fusion, similarity, parsed)))
    packed = _pack(direct, k, budget_chars, limits)
    # Supplements rank below every direct match: they are only looked for when room is left.
    if q.supplements and memories and direct and len(packed) < k:
        packed = _pack(direct + supplements_find(direct, scope, kb_names, limit=k), k, budget_chars, limits)
    sources_attach(packed)
    stats_add(scope.kb_ids, recalls=1)
    return packed


def _tables(scope: Scope, memories: bool, insights: bool, turns: bool = False) -> tuple[Table, ...]:
    """The tables searched, their scope compiled to SQL once per scope in this process (it took a third of a
    millisecond, a tenth of a small KB's recall), and once for all the end users of a scope: compiled with a
    stand-in for the user, whose id is put in its place."""
    if scope.end_user_id is None:
        return _compiled(scope, memories, insights, turns)
    shape = _compiled(replace(scope, end_user_id=USER_SLOT), memories, insights, turns)
    shared = _compiled(replace(scope, end_user_id=None), memories, insights, turns)
    own = _compiled(replace(scope, end_user_id=USER_SLOT, own=True), memories, insights, turns)
    return tuple(
        table.for_user(USER_SLOT, scope.end_user_id, shared=common, own=theirs)
        for table, common, theirs in zip(shape, shared, own, strict=True)
    )


# No row has this id: it only marks where the end user's id goes in a compiled scope.
USER_SLOT = -(2**62) - 7


@functools.lru_cache(maxsize=1024)
def _compiled(scope: Scope, memories: bool, insights: bool, turns: bool) -> tuple[Table, ...]:
    tables = [Table.of(scope.memories(), "memory")] if memories else []
    tables += [Table.of(scope.turns(), "turn")] if turns else []
    tables += [Table.of(scope.insights(), "insight", scope.end_user_id)] if insights else []
    # As things stand (not as of a time): the retired facts a newer one replaced, for what replaced them.
    now = not (scope.as_of or scope.known_at or scope.exclude_session or scope.metadata)
    return tuple(tables + ([Table.of(scope.replaced(), "replaced")] if memories and now else []))


def _direct(
    kbs, tables: tuple[Table, ...], parsed: ParsedQuery, embedding, query_vector, second=None
) -> tuple[Fusion, dict]:
    """The full-text and vector lists of every table, fused; and the vector similarity of what the vector lists
    found. For one end user, a question about a subject also searches ``about``, the words of its facts and the
    names of the people it asks about (:func:`subject_words`). With ``second`` (the question's multilingual
    embedding under way), the memories nearest it by their multilingual vectors too."""
    fusion, similarity = Fusion(), {}
    tsquery, about = parsed.tsquery, parsed.about
    with transaction.atomic(using=reads.alias):
        # Every KB in scope keeps word statistics: read them instead of counting.
        stats = tuple(kb.pk for kb in kbs) if all(kb.term_stats_memories for kb in kbs) else None
        codes = tuple(held(kbs))
        ranked = fts_ranked(list(tables), tsquery, CANDIDATES, stats, codes)
        for table in tables:
            weight = FTS_WEIGHT * TABLE_WEIGHT.get(table.type, 1.0)
            fusion.add([(table.type, pk) for pk in ranked.get(table.type, [])], weight=weight, signal="fts")
        # A question about a subject ("tell me about the family") finds the words that state its facts ("sister").
        # In the facts only: they are the turns' digest, and a turn is found by the question's own words and meaning.
        # Over 100,000 shared turns, counting a subject's hundred words for each user was most of a slow recall
        # (growth, LLM mode: p95 249 → 106 ms).
        if about:
            told = [t for t in tables if t.type != "turn"]
            ranked = fts_ranked(told, " or ".join(about), CANDIDATES, stats, codes)
            for table in told:
                found = [(table.type, pk) for pk in ranked.get(table.type, [])]
                weight = CONCEPT_WEIGHT * TABLE_WEIGHT.get(table.type, 1.0)
                fusion.add(found, weight=weight, signal="concept")
        if parsed.where and tables and tables[0].own is not None:
            fusion.add([("memory", pk) for pk in places_ranked(tables[0].own)], weight=PLACE_WEIGHT, signal="place")
        if embedding is not None:
            query_vector = as_vectors([embedding.result()])[0]
        vector = vector_literal(query_vector)
        indexed = any(kb.vector_index for kb in kbs)
        for table in tables:
            if table.type == "replaced" and indexed:
                continue  # a large KB's retired facts are found by their words only: compared exactly, too many
            found = vector_ranked(table, vector, CANDIDATES, tuple(kb.pk for kb in kbs), indexed=indexed)
            weight = VECTOR_WEIGHT * TABLE_WEIGHT.get(table.type, 1.0)
            fusion.add([(table.type, pk) for pk, _ in found], weight=weight, signal="vector")
            similarity.update({(table.type, pk): sim for pk, sim in found})
        if second is not None:
            table = tables[0]  # the memories
            second_vector = vector_literal(as_vectors([second.result()])[0])
            found = multilingual_ranked(table, second_vector, CANDIDATES, tuple(kb.pk for kb in kbs), indexed=indexed)
            fusion.add([(table.type, pk) for pk, _ in found], weight=VECTOR_WEIGHT, signal="multilingual")
            for pk, sim in found:
                similarity[(table.type, pk)] = max(similarity.get((table.type, pk)) or 0.0, sim)
    return fusion, similarity


def places_ranked(table: Table) -> list[int]:
    """The latest PLACE_CANDIDATES memories of ``table`` (an end user's own) that name a place, by their stored
    reading (kbsite.languages.places), latest first."""
    with reads.cursor() as cursor:
        cursor.execute(
            f"""SELECT id FROM {table.name} WHERE {table.where} AND jsonb_array_length(reading -> 'places') > 0
                ORDER BY coalesce(valid_from, created_at) DESC, id DESC LIMIT %s""",
            [*table.params, PLACE_CANDIDATES],
        )
        return [pk for (pk,) in cursor.fetchall()]


def _weighed(hits: dict, fusion: Fusion, similarity: dict, parsed: ParsedQuery) -> list[Hit]:
    """The hits scored (fused score, weighted by kind, by naming their subject, by being dated in the period the
    query names), best first."""
    names, period = parsed.names, parsed.period
    for key, hit in hits.items():
        hit.score = fusion.scores[key] * KIND_WEIGHT.get(hit.kind, 1.0)
        if hit.subject and names(hit.subject):
            hit.score *= SUBJECT_WEIGHT
        if period and hit.valid_from and period[0] <= hit.valid_from < period[1]:
            hit.score *= DATE_WEIGHT
            fusion.signals[key].append("date")
        hit.signals = fusion.signals[key]
        hit.similarity = similarity.get(key)
    return sorted(hits.values(), key=lambda h: (-h.score, -h.id))


def _pack(hits: list[Hit], k: int, budget_chars: int | None, limits=None) -> list[Hit]:
    if limits:
        return [
            hit
            for type_, (type_k, type_budget) in limits.items()
            for hit in _pack([h for h in hits if SHARE.get(h.type, h.type) == type_], type_k, type_budget)
        ]
    return pack(hits, k=k, budget_chars=budget_chars, size=lambda hit: len(hit.text))


def query_embedding(query: str) -> Future:
    """The query's embedding, computed on another thread (pass it to :func:`recall` as ``query_vector``), in a copy
    of this context: it counts on the caller's usage meter."""
    return _embedder().submit(contextvars.copy_context().run, embeddings.embed_query, query)


def multilingual_embedding(query: str, kbs) -> Future | None:
    """The question's multilingual embedding, computed on another thread, where the KBs hold memories in a language
    other than English or the question is in one (memories.multilingual: an English question finds Spanish facts, a
    Spanish one their paraphrase, and English facts once the KB's memories have their second vector: the first
    question in a language notes it on the KBs); else None."""
    if embeddings.get_multilingual() is None:
        return None
    asked = detect(query)
    if asked not in languages.ENGLISH:
        kbs_asked_in(kbs, asked)
    elif all(code in languages.ENGLISH for code in held(kbs)):
        return None
    return _embedder().submit(contextvars.copy_context().run, embeddings.embed_multilingual_query, query)


@functools.cache
def _embedder() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="recall-embed")
