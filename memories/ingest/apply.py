"""Applying an extraction in one transaction: dedup, supersession, provenance, graph, cursors.

Applying an extraction, in one transaction per batch: verbatim and near-duplicates skipped (their turns added to the
provenance of the memory they repeat), contradicted facts retired (never deleted), the entity graph grown, the
session cursors advanced only then. Applies of one KB take turns under its write lock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from kbsite import locks
from kbsite.ai import embeddings
from kbsite.ai.defence import Screening, screen_many
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.locks import Lock
from kbsite.models import JobRun, KnowledgeBase
from kbsite.models.embeddings import stale_clause
from memories.ingest import bulk, statements, supersession
from memories.ingest.extraction import Extraction, Fact
from memories.models import Edge, Entity, Memory, Message, Session, text_hash
from memories.multilingual import memories_multilingual


@dataclass
class CursorGuard:
    """Advance ``session``'s cursor to ``to`` in the apply transaction, if it is still at ``expected``."""

    session_id: int
    expected: int
    to: int
    end_user_id: int | None = None  # whose session it is: its facts are theirs


class CursorMoved(Exception):
    """Another job already processed these turns; this job's result is discarded."""


def facts_apply(
    *,
    kb: KnowledgeBase,
    extraction: Extraction,
    turn_message_ids: dict[str, int],
    job: JobRun,
    source: str,
    source_file: str = "",
    cursors: list[CursorGuard] = (),
    turn_chunks: dict[str, int] | None = None,
    end_user_id: int | None = None,
    turn_metadata: dict[str, dict] | None = None,
    turn_languages: dict[str, str] | None = None,
    searched_turns: dict[int, str] | None = None,
) -> None:
    """Apply an extraction in one transaction: dedup, supersede (retire, never delete), graph, cursors.

    ``turn_message_ids`` and ``turn_chunks`` map the extraction's turn refs to the messages or document chunks
    its facts cite, ``turn_metadata`` the client's labels of those turns (a fact gets those of its turns) and
    ``turn_languages`` their languages (a fact is in its first turn's, else told from its own text); the
    ``cursors`` move only if no other job has moved them since the extraction started.
    The facts are ``end_user_id``'s (None: shared), and everything they are compared with is too: a repeat is
    a repeat of the same owner's fact, and a fact retires only one of the same owner.
    ``searched_turns`` (message id: text) are the turns made searchable beside the facts (see
    memories.recall.turns): those the screening lets through are embedded with them.
    """
    facts = _screened(extraction, job)
    turns = _turns_screened(searched_turns or {})
    vectors, turn_vectors = _embedded([s.text for _, s in facts], list(turns.values()))
    now = timezone.now()
    with transaction.atomic():
        locks.hold(Lock.KB_WRITE, kb.pk)
        _cursors_check(cursors)
        fields = _fields(kb, end_user_id, source=source, source_file=source_file, mode=extraction.mode, job=job)
        turns_of = _TurnsOf(turn_message_ids, turn_chunks or {}, turn_metadata or {}, turn_languages or {})
        new, repeated = _memories_new(kb, facts, vectors, job, turns_of, fields, now)
        bulk.memories_insert([memory for memory, _, _ in new])
        _sources_link(new, repeated)
        job.facts_superseded += supersession.named_retire(kb, end_user_id, [(m, old) for m, _, old in new], now)
        job.facts_superseded += supersession.restated_retire(kb, end_user_id, [m for m, _, _ in new], now)
        supersession.ended_conflicts(kb, end_user_id, [m for m, _, _ in new], now)
        job.facts_added += len(new)
        job.facts_quarantined += sum(1 for memory, _, _ in new if memory.quarantined)
        _graph_grow(kb, end_user_id, [memory for memory, _, _ in new], extraction.edges)
        for guard in cursors:
            Session.objects.filter(pk=guard.session_id).update(extracted_through=guard.to)
        _turns_searchable(list(turns), turn_vectors, indexed=fields["in_vector_index"])
        job.tokens_in += extraction.tokens_in
        job.tokens_out += extraction.tokens_out
        job.mode = extraction.mode
        job.save_work()  # only what the run wrote: an operator may have forced it offline meanwhile
    # In a language other than English, each new memory's second vector (after the KB's lock: none waits for it).
    memories_multilingual([memory for memory, _, _ in new])


def _screened(extraction: Extraction, job: JobRun) -> list[tuple[Fact, Screening]]:
    """The facts with their screening (cleaned text, flags); those left with under 3 characters are skipped."""
    screened = screen_many([f.text for f in extraction.facts])
    facts = [(f, s) for f, s in zip(extraction.facts, screened, strict=True) if len(s.text) >= 3]
    job.facts_skipped += len(extraction.facts) - len(facts) + extraction.rejected
    if extraction.rejected:  # facts the LLM gave that share no word with the turns they cite
        job.detail = {**job.detail, "facts_rejected": job.detail.get("facts_rejected", 0) + extraction.rejected}
    return facts


def _fields(kb: KnowledgeBase, end_user_id: int | None, *, source: str, source_file: str, mode: str, job) -> dict:
    """What every new memory of the extraction shares (read under the KB's lock: whether it is in the HNSW index)."""
    # An end user's memories stay out of the HNSW index: their few are compared exactly.
    indexed = end_user_id is None and bool(
        KnowledgeBase.objects.filter(pk=kb.pk).values_list("vector_index", flat=True).first()
    )
    return dict(
        kb=kb,
        end_user_id=end_user_id,
        source=source,
        source_file=source_file,
        mode=mode,
        job_run=job,
        in_vector_index=indexed,
    )


def _embedded(facts: list[str], turns: list[str]) -> tuple[list, list]:
    """The facts' and the turns' vectors, in one batch (before the KB's lock is taken)."""
    vectors = as_vectors(embeddings.embed(facts + turns))
    return vectors[: len(facts)], vectors[len(facts) :]


def _turns_searchable(ids: list[int], vectors: list, *, indexed: bool) -> None:
    """The turns ``ids`` made searchable: their vectors stored (see memories.recall.turns), in the HNSW index when
    the facts drawn from them are (shared turns of a KB that has outgrown exact search)."""
    for pk, vector in zip(ids, vectors, strict=True):
        Message.objects.filter(pk=pk).update(embedding=vector, in_vector_index=indexed)


def _turns_screened(turns: dict[int, str]) -> dict[int, str]:
    """The turns that may be searched: those the screening does not flag (an injection or a secret in a turn is
    kept out of every context, as it would be in a memory)."""
    screened = screen_many(list(turns.values()))
    return {pk: text for (pk, text), s in zip(turns.items(), screened, strict=True) if not s.quarantined}


def _cursors_check(cursors: list[CursorGuard]) -> None:
    """The cursors must still be where the extraction started, or another job applied these turns."""
    if not cursors:
        return
    at = dict(
        Session.objects.select_for_update()
        .filter(pk__in=[c.session_id for c in cursors])
        .values_list("id", "extracted_through")
    )
    moved = [c for c in cursors if at.get(c.session_id) != c.expected]
    if moved:
        raise CursorMoved(f"{len(moved)} session cursor(s) moved while extracting; result discarded")


NewMemory = tuple[Memory, list[int], "int | None"]  # the memory, the messages it cites, the memory it replaces


@dataclass
class _TurnsOf:
    """What the turns an extraction read give the facts citing them, by turn ref."""

    message_ids: dict[str, int]
    chunks: dict[str, int]
    metadata: dict[str, dict]
    languages: dict[str, str]

    def language(self, kb: KnowledgeBase, fact) -> str:
        told = [self.languages[ref] for ref in fact.turn_refs if self.languages.get(ref)]
        return told[0] if told else kb.languages_of([fact.text])[0]


def _memories_new(kb, facts, vectors, job, turns_of: _TurnsOf, fields, now):
    """The memories to insert, and (memory id, message ids) for the repeats: a fact whose text is already live
    (or, unless it supersedes, is a near-duplicate of a live memory) adds its turns to that memory's sources."""
    hashes = [text_hash(s.text) for _, s in facts]
    owner = fields["end_user_id"]
    live = Memory.objects.live().owned_by(owner).filter(kb=kb, content_hash__in=hashes)
    existing = dict(live.values_list("content_hash", "id"))
    near = _near_duplicates(kb.pk, owner, vectors, settings.NEAR_DUPLICATE_SIMILARITY, fields["in_vector_index"])
    near_texts = dict(Memory.objects.filter(pk__in=set(near.values())).values_list("id", "text"))
    near = {i: pk for i, pk in near.items() if not statements.apart(near_texts[pk], facts[i][1].text)}
    new: list[NewMemory] = []
    repeated: list[tuple[int, list[int]]] = []
    batch_hashes: set[str] = set()
    for i, ((fact, screening), vector, digest) in enumerate(zip(facts, vectors, hashes, strict=True)):
        message_ids = [turns_of.message_ids[r] for r in fact.turn_refs if r in turns_of.message_ids]
        duplicate_of = existing.get(digest) or (near.get(i) if fact.supersedes is None else None)
        if duplicate_of or digest in batch_hashes:
            job.facts_skipped += 1
            if duplicate_of and message_ids:
                repeated.append((duplicate_of, message_ids))
            continue
        batch_hashes.add(digest)
        chunk_ids = [turns_of.chunks[r] for r in fact.turn_refs if r in turns_of.chunks]
        metadata: dict = {}
        for ref in fact.turn_refs:
            metadata.update(turns_of.metadata.get(ref, {}))
        language = turns_of.language(kb, fact)
        memory = Memory(
            text=screening.text,
            language=language,
            reading=statements.reading(screening.text, language, own=fact.own or None),
            source_chunk_id=chunk_ids[0] if chunk_ids else None,
            kind=fact.kind,
            # No word of a quarantined text goes anywhere else (the offline tags are words of the text).
            entities=[] if screening.quarantined else fact.entities,
            topics=[] if screening.quarantined else fact.topics,
            importance=fact.importance,
            embedding=vector,
            content_hash=digest,
            valid_from=fact.valid_from,
            metadata=metadata,
            quarantined=screening.quarantined,
            quarantine_reason=screening.reason,
            created_at=now,
            **fields,
        )
        new.append((memory, message_ids, fact.supersedes))
    return new, repeated


def _sources_link(new: list[NewMemory], repeated: list[tuple[int, list[int]]]) -> None:
    through = Memory.source_messages.through
    links = [through(memory_id=m.pk, message_id=msg) for m, msgs, _ in new for msg in msgs]
    links += [through(memory_id=pk, message_id=msg) for pk, msgs in repeated for msg in msgs]
    through.objects.bulk_create(links, ignore_conflicts=True)


def _graph_grow(
    kb: KnowledgeBase, end_user_id: int | None, memories: list[Memory], edges: list[tuple[str, str, str]]
) -> None:
    """The entities the new memories and edges name, and the edges, each belonging to the memory that asserts it (and
    retired with it); in the owner's own graph. An edge no new memory asserts is not kept: nothing would retire it."""
    anchored = [(src, rel, dst, m) for src, rel, dst in edges if (m := asserting(memories, src, dst)) and src != dst]
    names = {e for m in memories for e in m.entities} | {n for src, _, dst, _ in anchored for n in (src, dst)}
    entity_map = entities_upsert(kb, end_user_id, names)
    Edge.objects.bulk_create(
        [
            Edge(kb=kb, src=entity_map[src], relation=rel[:100], dst=entity_map[dst], memory=memory)
            for src, rel, dst, memory in anchored
            if src in entity_map and dst in entity_map
        ],
        ignore_conflicts=True,
    )


def asserting(memories: list[Memory], src: str, dst: str) -> Memory | None:
    """The memory that asserts the edge src -> dst: the first that names both ends (as entities, else in its
    text); None when none does. A memory that names only one end (another fact about the same person) does not."""

    def names(memory: Memory, name: str) -> bool:
        return name in memory.entities or name in memory.text.lower()

    return next((m for m in memories if not m.quarantined and names(m, src) and names(m, dst)), None)


def _near_duplicates(
    kb_id: int, end_user_id: int | None, vectors: list[list[float]], threshold: float, indexed: bool
) -> dict[int, int]:
    """For each vector index, the id of the most similar live memory of the same owner at least ``threshold``
    similar.

    Memories outside the vector index (all of a small KB's; in a large one, those written outside ingest
    until their embedding job moves them in) are compared exactly, in memory; with ``indexed``, the KB's
    memories in the index are probed through it, one query for all the vectors."""
    if not vectors:
        return {}
    best: dict[int, tuple[float, int]] = {}  # vector index -> (similarity, memory id)
    fresh, fresh_params = stale_clause("memories_memory")  # another model's vectors compare with nothing
    with vector_cursor(binary_results=True) as cursor:
        cursor.execute(
            f"""SELECT id, embedding FROM memories_memory
               WHERE kb_id = %s AND end_user_id IS NOT DISTINCT FROM %s
                 AND NOT in_vector_index AND retired_at IS NULL AND embedding IS NOT NULL AND {fresh}""",
            [kb_id, end_user_id, *fresh_params],
            binary=True,  # parsing 384 floats of text per row cost more than the query
        )
        rows = cursor.fetchall()
    if rows:
        new = np.asarray(vectors, dtype=np.float32)
        old = np.stack([v.to_numpy() for _, v in rows]).astype(np.float32)
        # Cosine similarity (an OpenAI-compatible endpoint need not return unit vectors).
        new /= np.linalg.norm(new, axis=1, keepdims=True) + 1e-12
        old /= np.linalg.norm(old, axis=1, keepdims=True) + 1e-12
        similarity = new @ old.T
        for i, j in enumerate(similarity.argmax(axis=1)):
            best[i] = (float(similarity[i, j]), rows[j][0])
    if indexed:
        with vector_cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute(
                f"""
                SELECT q.idx, nn.id, nn.distance
                FROM unnest(%s::int[], %s::vector[]) AS q(idx, v)
                CROSS JOIN LATERAL (
                    SELECT m.id, m.embedding <=> q.v AS distance
                    FROM memories_memory m
                    WHERE m.kb_id = %s AND m.in_vector_index AND m.retired_at IS NULL AND m.embedding IS NOT NULL
                      AND {fresh.replace("memories_memory.", "m.")}
                    ORDER BY m.embedding <=> q.v
                    LIMIT 1
                ) nn
                """,
                [list(range(len(vectors))), vectors, kb_id, *fresh_params],
            )
            for i, pk, distance in cursor.fetchall():
                if i not in best or 1 - distance > best[i][0]:
                    best[i] = (1 - distance, pk)
    return {i: pk for i, (similarity, pk) in best.items() if embeddings.scaled(similarity) >= threshold}


def entities_upsert(kb: KnowledgeBase, end_user_id: int | None, names: set[str]) -> dict[str, Entity]:
    """The owner's entities of these names, created where missing (the graph's nodes)."""
    names = {n for n in names if n}
    if not names:
        return {}
    Entity.objects.bulk_create(
        [Entity(kb=kb, end_user_id=end_user_id, name=n[:200], display_name=n[:200]) for n in names],
        ignore_conflicts=True,
    )
    return {e.name: e for e in Entity.objects.filter(kb=kb, end_user_id=end_user_id, name__in=names)}
