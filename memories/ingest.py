"""Ingestion workflows: chat turns, text and inbox files become atomic memories.

Input is stored first (messages, ingest items, inbox files) and processed by
jobs. A job that fails leaves its input where it was — the session cursor,
the pending item, the file in ``failed/`` — and is marked failed, so an
operator can retry it. Applies for one KB are serialised by an advisory lock.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import transaction
from django.db.models import Count, F, Min, Q
from django.utils import timezone

from kbsite import jobs, locks
from kbsite.ai import embeddings, llm, splitting
from kbsite.ai.defence import screen_many
from kbsite.ai.fulltext import FTS_CONFIG
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.locks import Lock
from kbsite.models import JobRun, KnowledgeBase, Mode
from knowledge.models import Document
from memories import bulk, services
from memories.extraction import Extraction, Fact, Turn, content_words, extract_heuristic, extract_llm, is_salient
from memories.models import Edge, Entity, IngestItem, Memory, Message, Session, text_hash

logger = logging.getLogger(__name__)

__all__ = ["CursorGuard", "CursorMoved", "Extraction", "Fact", "Turn", "facts_apply", "messages_receive"]

SEGMENT_CHARS = 2500
LLM_CALL_CHARS = 8000


# --- Receiving input ---------------------------------------------------------------


def messages_receive(*, kb: KnowledgeBase, session_id: str, messages: list[dict]) -> dict:
    """Store a batch of turns (idempotent by external_id within the KB) and queue their extraction."""
    with transaction.atomic():
        # Serialise posts to one KB so the duplicate check below is exact.
        locks.hold(Lock.KB_WRITE, kb.pk)
        # Sessions are only created here, under the KB's lock: no savepoint needed against a racing insert.
        session = Session.objects.filter(kb=kb, external_id=session_id).first()
        created = session is None
        if created:
            session = Session.objects.create(kb=kb, external_id=session_id)
        wanted = [m["external_id"] for m in messages]
        existing = set(Message.objects.filter(kb=kb, external_id__in=wanted).values_list("external_id", flat=True))
        rows, seen = [], set()
        for m in messages:
            if m["external_id"] in existing or m["external_id"] in seen:
                continue
            seen.add(m["external_id"])
            rows.append(m)
        bulk.messages_insert(kb_id=kb.pk, session_id=session.pk, messages=rows)
        if not created:
            Session.objects.filter(pk=session.pk).update(updated_at=timezone.now())
        job = enqueue_extract(kb=kb) if rows else None
        if rows:
            from memories.archive import archive_due

            # A new session holds just these turns: no need to count them.
            archive_due(session=session, unarchived=len(rows) if created else None)
    return {
        "session_id": session_id,
        "accepted": len(rows),
        "duplicates": len(messages) - len(rows),
        "job_id": job.pk if job else None,
    }


def text_receive(*, kb: KnowledgeBase, text: str, source: str) -> tuple[IngestItem, JobRun]:
    """Store a piece of text and queue its ingestion; returns the item and its job."""
    with transaction.atomic():
        item = IngestItem.objects.create(kb=kb, kind=IngestItem.Kind.TEXT, source=source, text=text)
        job = enqueue_item_ingest(item=item)
    return item, job


def enqueue_extract(*, kb: KnowledgeBase) -> JobRun:
    """Queue extraction of the KB's unprocessed turns, unless a queued job will already see them."""
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_MESSAGES, kb=kb, target="unprocessed turns", unique=True)


def enqueue_item_ingest(*, item: IngestItem) -> JobRun:
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_TEXT, kb=item.kb, obj=item, target=item.file_name or item.source)


def document_facts_queue(*, document: Document) -> JobRun | None:
    """Queue fact extraction from an uploaded or sent document, once: its facts then feed recall, citing chunks.

    Markdown knowledge files are the bot's own reference (searched as documents, not mined for facts), and
    archived conversations were extracted as turns.
    """
    if document.doc_type not in (Document.Type.UPLOAD, Document.Type.TEXT):
        return None
    with transaction.atomic():
        if IngestItem.objects.filter(document=document).exists():
            return None
        item = IngestItem.objects.create(
            kb_id=document.kb_id, kind=IngestItem.Kind.DOCUMENT, document=document, source=f"document:{document.slug}"
        )
        return enqueue_item_ingest(item=item)


# --- Applying facts ------------------------------------------------------------------


@dataclass
class CursorGuard:
    """Advance ``session``'s cursor to ``to`` in the apply transaction, if it is still at ``expected``."""

    session_id: int
    expected: int
    to: int


class CursorMoved(Exception):
    """Another job already processed these turns; this job's result is discarded."""


def _near_duplicates(kb_id: int, vectors: list[list[float]], threshold: float, indexed: bool) -> dict[int, int]:
    """For each vector index, the id of the most similar live memory at least ``threshold`` similar.

    Memories outside the vector index (all of a small KB's; in a large one, those written outside ingest
    until their embedding job moves them in) are compared exactly, in memory; with ``indexed``, the KB's
    memories in the index are probed through it, one query for all the vectors."""
    if not vectors:
        return {}
    best: dict[int, tuple[float, int]] = {}  # vector index -> (similarity, memory id)
    with vector_cursor(binary_results=True) as cursor:
        cursor.execute(
            """SELECT id, embedding FROM memories_memory
               WHERE kb_id = %s AND NOT in_vector_index AND valid_to IS NULL AND embedding IS NOT NULL""",
            [kb_id],
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
                """
                SELECT q.idx, nn.id, nn.distance
                FROM unnest(%s::int[], %s::vector[]) AS q(idx, v)
                CROSS JOIN LATERAL (
                    SELECT m.id, m.embedding <=> q.v AS distance
                    FROM memories_memory m
                    WHERE m.kb_id = %s AND m.in_vector_index AND m.valid_to IS NULL AND m.embedding IS NOT NULL
                    ORDER BY m.embedding <=> q.v
                    LIMIT 1
                ) nn
                """,
                [list(range(len(vectors))), vectors, kb_id],
            )
            for i, pk, distance in cursor.fetchall():
                if i not in best or 1 - distance > best[i][0]:
                    best[i] = (1 - distance, pk)
    return {i: pk for i, (similarity, pk) in best.items() if similarity >= threshold}


def _upsert_entities(kb: KnowledgeBase, names: set[str]) -> dict[str, Entity]:
    names = {n for n in names if n}
    if not names:
        return {}
    Entity.objects.bulk_create(
        [Entity(kb=kb, name=n[:200], display_name=n[:200]) for n in names], ignore_conflicts=True
    )
    return {e.name: e for e in Entity.objects.filter(kb=kb, name__in=names)}


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
) -> None:
    """Apply an extraction in one transaction: dedup, supersede (retire, never delete), graph, cursors."""
    screened = screen_many([f.text for f in extraction.facts])
    facts = [(f, s) for f, s in zip(extraction.facts, screened, strict=True) if len(s.text) >= 3]
    job.facts_skipped += len(extraction.facts) - len(facts) + extraction.rejected
    # Embeddings are computed before taking the lock, in one batch.
    vectors = as_vectors(embeddings.embed([s.text for _, s in facts]))
    now = timezone.now()

    with transaction.atomic():
        locks.hold(Lock.KB_WRITE, kb.pk)
        if cursors:
            # The cursors must still be where the extraction started, or another job applied these turns.
            at = dict(
                Session.objects.select_for_update()
                .filter(pk__in=[c.session_id for c in cursors])
                .values_list("id", "extracted_through")
            )
            moved = [c for c in cursors if at.get(c.session_id) != c.expected]
            if moved:
                raise CursorMoved(f"{len(moved)} session cursor(s) moved while extracting; result discarded")

        hashes = [text_hash(s.text) for _, s in facts]
        existing = dict(Memory.objects.live().filter(kb=kb, content_hash__in=hashes).values_list("content_hash", "id"))
        indexed = bool(KnowledgeBase.objects.filter(pk=kb.pk).values_list("vector_index", flat=True).first())
        near = _near_duplicates(kb.pk, vectors, settings.NEAR_DUPLICATE_SIMILARITY, indexed)

        new_rows: list[tuple[Memory, list[int], int | None]] = []  # memory, its message ids, what it replaces
        extra_provenance: list[tuple[int, list[int]]] = []
        batch_hashes: set[str] = set()
        for i, ((fact, screening), vector, digest) in enumerate(zip(facts, vectors, hashes, strict=True)):
            message_ids = [turn_message_ids[r] for r in fact.turn_refs if r in turn_message_ids]
            duplicate_of = existing.get(digest) or (near.get(i) if fact.supersedes is None else None)
            if duplicate_of or digest in batch_hashes:
                job.facts_skipped += 1
                if duplicate_of and message_ids:
                    extra_provenance.append((duplicate_of, message_ids))
                continue
            batch_hashes.add(digest)
            chunk_ids = [turn_chunks[r] for r in fact.turn_refs if r in (turn_chunks or {})]
            memory = Memory(
                kb=kb,
                text=screening.text,
                source_chunk_id=chunk_ids[0] if chunk_ids else None,
                kind=fact.kind,
                entities=fact.entities,
                topics=fact.topics,
                importance=fact.importance,
                embedding=vector,
                in_vector_index=indexed,
                content_hash=digest,
                valid_from=fact.valid_from,
                source=source,
                source_file=source_file,
                mode=extraction.mode,
                job_run=job,
                quarantined=screening.quarantined,
                quarantine_reason=screening.reason,
                created_at=now,
            )
            new_rows.append((memory, message_ids, fact.supersedes))

        bulk.memories_insert([m for m, _, _ in new_rows])
        through = Memory.source_messages.through
        links = [through(memory_id=m.pk, message_id=msg) for m, msgs, _ in new_rows for msg in msgs]
        links += [through(memory_id=pk, message_id=msg) for pk, msgs in extra_provenance for msg in msgs]
        through.objects.bulk_create(links, ignore_conflicts=True)

        for memory, _, old_id in new_rows:
            if old_id is None:
                continue
            retired = Memory.objects.filter(pk=old_id, kb=kb, valid_to__isnull=True).update(
                valid_to=now, superseded_by=memory, retired_reason="superseded by a newer fact", updated_at=now
            )
            if retired:
                job.facts_superseded += 1
                Edge.objects.filter(memory_id=old_id, valid_to__isnull=True).update(valid_to=now)

        job.facts_added += len(new_rows)
        job.facts_quarantined += sum(1 for m, _, _ in new_rows if m.quarantined)

        names = {e for m, _, _ in new_rows for e in m.entities}
        names |= {n for src, _, dst in extraction.edges for n in (src, dst)}
        entity_map = _upsert_entities(kb, names)
        anchor = {e: m for m, _, _ in new_rows for e in m.entities}
        Edge.objects.bulk_create(
            [
                Edge(kb=kb, src=entity_map[src], relation=rel[:100], dst=entity_map[dst], memory=anchor.get(src))
                for src, rel, dst in extraction.edges
                if src in entity_map and dst in entity_map and src != dst
            ],
            ignore_conflicts=True,
        )

        for guard in cursors:
            Session.objects.filter(pk=guard.session_id).update(extracted_through=guard.to)
        job.tokens_in += extraction.tokens_in
        job.tokens_out += extraction.tokens_out
        job.mode = extraction.mode
        job.save()


# --- Extraction jobs -------------------------------------------------------------------


def _live_facts_for_prompt(kb: KnowledgeBase, turns: list[Turn]) -> list[tuple[int, str, str]]:
    """The live facts the model should see: those sharing words with the turns, then the most recent."""
    limit = settings.EXTRACT_LIVE_FACTS
    if limit == 0:
        return []
    live = Memory.objects.injectable().filter(kb=kb)
    words = sorted({w for t in turns for w in content_words(t.text) if re.fullmatch(r"[a-z0-9]+", w)})[:64]
    picked: list[tuple[int, str, str]] = []
    if words:
        query = SearchQuery(" | ".join(words), search_type="raw", config=FTS_CONFIG)
        picked = list(
            live.filter(search_vector=query)
            .annotate(rank=SearchRank(F("search_vector"), query))
            .order_by("-rank")
            .values_list("id", "kind", "text")[:limit]
        )
    seen = {pk for pk, _, _ in picked}
    for row in live.order_by("-created_at").values_list("id", "kind", "text")[: limit * 2]:
        if len(picked) >= limit:
            break
        if row[0] not in seen:
            picked.append(row)
    return picked


def _extract(kb: KnowledgeBase, turns: list[Turn]) -> Extraction:
    if llm.is_configured():
        return extract_llm(turns=turns, live_facts=_live_facts_for_prompt(kb, turns), now=timezone.now())
    return extract_heuristic(turns)


def _fail(job: JobRun, exc: Exception) -> JobRun:
    tokens = getattr(exc, "tokens", (0, 0))
    job.tokens_in += tokens[0]
    job.tokens_out += tokens[1]
    attempts = getattr(exc, "attempts", None)
    if attempts:
        job.detail = {**job.detail, "llm_attempts": attempts}
    job.finish(status=JobRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    logger.warning("job %s failed: %s", job.pk, exc)
    return job


def _claim_batches(
    kb: KnowledgeBase, job: JobRun, exclude: set[int], budget: int, sharers: int = 1
) -> tuple[list[int], bool]:
    """Claim for ``job`` the KB's sessions with unprocessed turns, oldest first, until they hold ``budget``
    turns, skipping sessions another job has claimed. Returns the claimed session ids and whether
    unclaimed work was left for another job. A claim lasts at most the job time limit.

    With ``sharers`` workers sharing the waiting work, a job claims at most its even share of the free turns
    of this KB and of the other KBs whose extraction is queued. While other KBs wait, chunks stay large (a
    batch of embeddings pads less when there are more texts of each length to group: counting only this KB,
    LoCoMo went in 10-16 chunks per worker, under 32 turns for half of them, and 8 % slower end to end); the
    last turns are still split between the workers rather than left to one running alone."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now) | Q(claimed_by=job)
    rows = list(
        Message.objects.filter(kb=kb, id__gt=F("session__extracted_through"))
        .exclude(session_id__in=exclude)
        .filter(session__in=Session.objects.filter(free))
        .values("session_id")
        .annotate(turns=Count("id"), first=Min("id"))
        .order_by("first")
    )
    until = now + timedelta(seconds=settings.Q_CLUSTER["timeout"])
    if sharers > 1:
        queued = JobRun.objects.filter(kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.QUEUED).exclude(kb=kb)
        # Counted only as far as could change the share: a long backlog is not read on every claim.
        elsewhere = (
            Message.objects.filter(kb__in=queued.values("kb_id"), id__gt=F("session__extracted_through"))
            .filter(session__in=Session.objects.filter(free))
            .values("id")[: budget * sharers]
            .count()
        )
        free_turns = elsewhere + sum(min(row["turns"], settings.EXTRACT_BATCH_TURNS) for row in rows)
        budget = min(budget, -(-free_turns // sharers))
    claimed: list[int] = []
    taken = 0
    for row in rows:
        if taken >= budget:
            return claimed, True
        if Session.objects.filter(free, pk=row["session_id"]).update(claimed_by=job, claimed_until=until):
            claimed.append(row["session_id"])
            taken += min(row["turns"], settings.EXTRACT_BATCH_TURNS)
    return claimed, False


def _release(job: JobRun, session_ids: list[int]) -> None:
    Session.objects.filter(pk__in=session_ids, claimed_by=job).update(claimed_by=None, claimed_until=None)


def _claimed_batches(session_ids: list[int]) -> list[tuple[CursorGuard, list[Turn]]]:
    """The claimed sessions' turns past their cursors (read after claiming, so the cursors are current),
    at most EXTRACT_BATCH_TURNS per session."""
    by_session: dict[int, list[Turn]] = {sid: [] for sid in session_ids}
    cursors: dict[int, int] = {}
    pending = (
        Message.objects.filter(session_id__in=session_ids, id__gt=F("session__extracted_through"))
        .order_by("id")
        .values_list("id", "session_id", "session__extracted_through", "content", "speaker", "role", "created_at")
    )
    for pk, session_id, cursor, content, speaker, role, created_at in pending:
        batch = by_session[session_id]
        cursors[session_id] = cursor
        if len(batch) < settings.EXTRACT_BATCH_TURNS:
            batch.append(Turn(ref=f"m{pk}", text=content, speaker=speaker, role=role, when=created_at, message_id=pk))
    return [
        (CursorGuard(session_id=sid, expected=cursors[sid], to=batch[-1].message_id), batch)
        for sid, batch in by_session.items()
        if batch
    ]


def extract_pending(*, job: JobRun) -> JobRun:
    """Extract facts from the KB's turns past their session cursors.

    The job claims sessions holding about EXTRACT_CHUNK_TURNS new turns at a time. With an LLM: one
    call per session batch, each applied on its own, sessions in order. Offline: the chunk is extracted,
    embedded and applied together, and while more turns wait the job queues a second one, so that all
    workers share one KB's backlog (their applies still take turns under the KB's lock); each claims at
    most its even share of the waiting turns, so the workers finish together (see _claim_batches).
    """
    kb = job.kb
    job.start()
    skipped_turns = 0
    failed_sessions: set[int] = set()
    errors: list[Exception] = []
    offline = not llm.is_configured()
    sharers = settings.Q_CLUSTER["workers"] if offline else 1  # workers that can share the KB's backlog
    while True:
        claimed, more = _claim_batches(kb, job, failed_sessions, settings.EXTRACT_CHUNK_TURNS, sharers)
        if not claimed:
            break
        try:
            if more and sharers > 1:
                enqueue_extract(kb=kb)
            batches = _claimed_batches(claimed)
            groups = [batches] if offline else [[b] for b in batches]
            for group in groups:
                skipped_turns += _extract_group(kb, job, group, failed_sessions, errors)
        finally:
            _release(job, claimed)
    job.detail = {**job.detail, "turns_skipped_by_salience_gate": skipped_turns}
    if errors:
        job.detail["failed_sessions"] = len(failed_sessions)
        return _fail(job, errors[-1])
    if not job.items_read:
        # Queued while another job was busy with the same KB, which took every waiting turn.
        job.finish(status=JobRun.Status.SKIPPED, error="no unprocessed turns were left (other jobs took them)")
        return job
    job.mode = job.mode or _mode()
    job.finish(status=JobRun.Status.SUCCEEDED)
    services.kb_term_stats_refresh_if_due(kb=kb)
    services.kb_vector_index_if_due(kb=kb)
    return job


def _extract_group(
    kb: KnowledgeBase,
    job: JobRun,
    group: list[tuple[CursorGuard, list[Turn]]],
    failed_sessions: set[int],
    errors: list[Exception],
) -> int:
    """Extract and apply one group of session batches; returns the turns the salience gate skipped."""
    turns = [t for _, batch in group for t in batch]
    job.items_read += len(turns)
    salient = [t for t in turns if is_salient(t.text)]
    try:
        # Nothing durable in the group: the cursors still advance, without an LLM call.
        extraction = _extract(kb, salient) if salient else Extraction([], [], _mode())
        facts_apply(
            kb=kb,
            extraction=extraction,
            turn_message_ids={t.ref: t.message_id for t in turns},
            job=job,
            source="chat",
            cursors=[guard for guard, _ in group],
        )
    except CursorMoved as exc:
        job.detail = {**job.detail, "note": str(exc)}
    except (llm.LLMError, embeddings.EmbeddingError) as exc:
        failed_sessions.update(guard.session_id for guard, _ in group)
        errors.append(exc)
    return len(turns) - len(salient)


def _mode() -> str:
    return Mode.LLM if llm.is_configured() else Mode.HEURISTIC


def item_ingest(*, job: JobRun) -> JobRun:
    """Ingest a text or file item, resuming after the segments already applied."""
    item = job.object
    kb = item.kb
    job.start()
    chunk_ids: list[int] = []
    if item.kind == IngestItem.Kind.DOCUMENT:
        # The document's own chunks are the segments, so each fact cites the chunk it came from.
        rows = list(item.document.chunks.order_by("ordinal").values_list("id", "text")) if item.document else []
        chunk_ids = [pk for pk, _ in rows]
        segments = [text for _, text in rows]
        source = item.source
    else:
        segments = splitting.pieces(item.text, SEGMENT_CHARS)
        source = f"inbox:{item.file_name}" if item.kind == IngestItem.Kind.FILE else f"api:{item.source or 'text'}"
    try:
        position = item.progress
        while position < len(segments):
            # Group segments into one LLM call of at most LLM_CALL_CHARS.
            group, size = [], 0
            while position + len(group) < len(segments):
                segment = segments[position + len(group)]
                if group and size + len(segment) > LLM_CALL_CHARS:
                    break
                group.append(segment)
                size += len(segment)
            turns = [Turn(ref=f"s{position + i}", text=seg, role="document") for i, seg in enumerate(group)]
            job.items_read += len(turns)
            extraction = _extract(kb, turns)
            facts_apply(
                kb=kb,
                extraction=extraction,
                turn_message_ids={},
                job=job,
                source=source,
                source_file=item.file_name,
                turn_chunks={t.ref: chunk_ids[position + i] for i, t in enumerate(turns)} if chunk_ids else None,
            )
            position += len(group)
            IngestItem.objects.filter(pk=item.pk).update(progress=position)
    except (llm.LLMError, embeddings.EmbeddingError) as exc:
        IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.FAILED, error=str(exc))
        return _fail(job, exc)
    IngestItem.objects.filter(pk=item.pk).update(
        status=IngestItem.Status.DONE, error="", processed_at=timezone.now(), progress=len(segments)
    )
    job.mode = job.mode or _mode()
    job.finish(status=JobRun.Status.SUCCEEDED)
    services.kb_term_stats_refresh_if_due(kb=kb)
    services.kb_vector_index_if_due(kb=kb)
    return job


# --- Inbox folders --------------------------------------------------------------------

CLAIM_DIR = ".processing"


def _stable(path: Path) -> bool:
    """A file that has stopped changing: not modified for INBOX_SETTLE_SECONDS."""
    try:
        return time.time() - path.stat().st_mtime >= settings.INBOX_SETTLE_SECONDS
    except FileNotFoundError:
        return False


def _unique(target: Path) -> Path:
    if not target.exists():
        return target
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S%f")
    return target.with_name(f"{target.stem}.{stamp}{target.suffix}")


def inbox_scan() -> int:
    """Claim every settled file in every active KB's inbox and queue it. Returns how many were queued."""
    queued = 0
    stale_after = settings.Q_CLUSTER["retry"] * 2
    for kb in KnowledgeBase.objects.filter(is_active=True, bot__is_active=True):
        inbox = kb.inbox_dir
        if not inbox.is_dir():
            continue
        claims = inbox / CLAIM_DIR
        for path in sorted(inbox.iterdir()):
            if not path.is_file() or path.name.startswith(".") or not _stable(path):
                continue
            claims.mkdir(exist_ok=True)
            claimed = _unique(claims / path.name)
            try:
                # rename() is atomic: of two scanners, exactly one claims the file.
                os.rename(path, claimed)
            except FileNotFoundError:
                continue
            _queue_file(kb, claimed)
            queued += 1
        # A claim left behind by a worker that died is released back to the inbox.
        if claims.is_dir():
            for path in claims.iterdir():
                if time.time() - path.stat().st_mtime > stale_after:
                    os.rename(path, _unique(inbox / path.name))
    return queued


def _queue_file(kb: KnowledgeBase, claimed: Path) -> JobRun:
    os.utime(claimed)  # the claim's age is measured from now
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_FILE, kb=kb, target=str(claimed.relative_to(kb.folder)))


def inbox_file_ingest(*, job: JobRun) -> JobRun:
    """Extract a claimed inbox file, ingest its text, move it to processed/ (or failed/ with the reason)."""
    from knowledge.extractors import ExtractionFailed, extract_text

    kb = job.kb
    claimed = kb.folder / job.target
    name = claimed.name
    if not claimed.is_file():
        job.finish(status=JobRun.Status.SKIPPED, error="file is gone (already processed?)")
        return job
    try:
        text = extract_text(name, claimed.read_bytes())
    except ExtractionFailed as exc:
        job.start()
        _park_failed(job, claimed, str(exc))
        return _fail(job, exc)
    item = IngestItem.objects.create(
        kb=kb, kind=IngestItem.Kind.FILE, file_name=name, source=f"inbox:{name}", text=text
    )
    job.object = item
    job.save(update_fields=["object_type", "object_id"])
    item_ingest(job=job)
    if job.status == JobRun.Status.SUCCEEDED:
        kb.processed_dir.mkdir(parents=True, exist_ok=True)
        shutil.move(claimed, _unique(kb.processed_dir / name))
    else:
        _park_failed(job, claimed, job.error)
        job.save(update_fields=["detail"])
    return job


def _park_failed(job: JobRun, claimed: Path, reason: str) -> None:
    """Move the file to failed/ with ``<name>.error.txt`` beside it saying why."""
    failed_dir = job.kb.failed_dir
    failed_dir.mkdir(parents=True, exist_ok=True)
    target = _unique(failed_dir / claimed.name)
    shutil.move(claimed, target)
    target.with_name(target.name + ".error.txt").write_text(
        f"{timezone.now().isoformat()} could not ingest {claimed.name}:\n{reason}\n"
    )
    job.detail = {**job.detail, "failed_file": target.name}


# --- Retrying -----------------------------------------------------------------------------


def item_retry(job: JobRun) -> JobRun | None:
    """Queue a failed text or document item again; it resumes after the segments already applied."""
    item = job.object
    if not isinstance(item, IngestItem) or item.kind not in (IngestItem.Kind.TEXT, IngestItem.Kind.DOCUMENT):
        return None
    IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.PENDING, error="")
    return enqueue_item_ingest(item=item)


def file_retry(job: JobRun) -> JobRun | None:
    """Move the failed file back among the claimed inbox files and queue it again."""
    kb = job.kb
    name = job.detail.get("failed_file") or Path(job.target).name
    failed = kb.failed_dir / name
    if not failed.is_file():
        return None
    failed.with_name(name + ".error.txt").unlink(missing_ok=True)
    claims = kb.inbox_dir / CLAIM_DIR
    claims.mkdir(parents=True, exist_ok=True)
    claimed = _unique(claims / name)
    shutil.move(failed, claimed)
    return _queue_file(kb, claimed)
