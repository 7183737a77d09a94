"""Export as JSON Lines: a whole KB, or everything held about one end user, read in chunks and streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from kbsite.models import EndUser, KnowledgeBase
from knowledge.models import Document
from memories.models import Edge, Insight, Memory, Message, Session
from memories.portability.records import FORMAT_VERSION


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def _user(row) -> str | None:
    return row.end_user.external_id if row.end_user_id else None


def records(*, kbs: list[KnowledgeBase], end_user: EndUser | None = None) -> Iterator[dict]:
    """Everything held in ``kbs`` (about ``end_user`` only, when given) as records of the export format
    (:mod:`memories.portability.records`): the user(s), sessions, turns, documents with their content, memories
    live and retired with provenance and validity, insights and graph edges. Read in chunks, never all at once."""
    kb_names = {kb.pk: kb.name for kb in kbs}

    def owned(queryset: QuerySet, owner: str = "end_user") -> QuerySet:
        queryset = queryset.filter(kb__in=kbs)
        return queryset.filter(**{owner: end_user}) if end_user else queryset

    yield {
        "type": "export",
        "version": FORMAT_VERSION,
        "kbs": sorted(kb_names.values()),
        "user_id": end_user.external_id if end_user else None,
        "exported_at": _iso(timezone.now()),
    }
    users = [end_user] if end_user else EndUser.objects.filter(bot=kbs[0].bot) if kbs else []
    for user in users:
        yield {"type": "user", "user_id": user.external_id, "created_at": _iso(user.created_at)}
    yield from _sessions(owned(Session.objects.select_related("end_user")), kb_names)
    turns = owned(Message.objects.select_related("session"), owner="session__end_user").order_by("id")
    for m in turns.iterator(chunk_size=1000):
        yield {
            "type": "turn",
            "kb": kb_names[m.kb_id],
            "session_id": m.session.external_id,
            "external_id": m.external_id,
            "role": m.role,
            "speaker": m.speaker,
            "content": m.content,
            "metadata": m.metadata,
            "created_at": _iso(m.created_at),
        }
    for d in owned(Document.objects.present().select_related("end_user")).order_by("id").iterator(chunk_size=100):
        yield {
            "type": "document",
            "kb": kb_names[d.kb_id],
            "slug": d.slug,
            "user_id": _user(d),
            "title": d.title,
            "doc_type": d.doc_type,
            "namespace": d.namespace,
            "source": d.source,
            "content": d.content,
            "metadata": {k: v for k, v in d.metadata.items() if k != "file"},  # the stored file stays behind
            "quarantine_reason": d.quarantine_reason,
            "created_at": _iso(d.created_at),
        }
    yield from _memories(owned(Memory.objects.select_related("end_user")), kb_names)
    insights = owned(Insight.objects.select_related("end_user")).prefetch_related("memories").order_by("id")
    for i in insights.iterator(chunk_size=500):
        yield {
            "type": "insight",
            "kb": kb_names[i.kb_id],
            "id": i.pk,
            "user_id": _user(i),
            "text": i.text,
            "memories": sorted(m.pk for m in i.memories.all()),
            "mode": i.mode,
            "created_at": _iso(i.created_at),
            "retired_at": _iso(i.retired_at),
        }
    edges = owned(Edge.objects.select_related("src__end_user", "dst"), owner="src__end_user").order_by("id")
    for e in edges.iterator(chunk_size=1000):
        yield {
            "type": "edge",
            "kb": kb_names[e.kb_id],
            "user_id": _user(e.src),
            "src": e.src.name,
            "relation": e.relation,
            "dst": e.dst.name,
            "memory": e.memory_id,
            "retired_at": _iso(e.retired_at),
        }


def _sessions(sessions: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    """Session records; the extraction and archive cursors as the external ids of the turns they stand at."""
    sessions = sessions.annotate(
        extracted_turn=Subquery(Message.objects.filter(pk=OuterRef("extracted_through")).values("external_id")),
        archived_turn=Subquery(Message.objects.filter(pk=OuterRef("archived_through")).values("external_id")),
    )
    for s in sessions.order_by("id").iterator(chunk_size=500):
        yield {
            "type": "session",
            "kb": kb_names[s.kb_id],
            "session_id": s.external_id,
            "user_id": _user(s),
            "created_at": _iso(s.created_at),
            "extracted_through": s.extracted_turn,
            "archived_through": s.archived_turn,
        }


def _memories(memories: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    """Memory records, 500 at a time with their provenance."""
    batch: list[Memory] = []
    for memory in memories.order_by("id").defer("embedding").iterator(chunk_size=500):
        batch.append(memory)
        if len(batch) == 500:
            yield from _memory_batch(batch, kb_names)
            batch = []
    yield from _memory_batch(batch, kb_names)


def _memory_batch(batch: list[Memory], kb_names: dict[int, str]) -> Iterator[dict]:
    ids = [m.pk for m in batch]
    sources = Memory.objects.filter(pk__in=ids).sources_by_id()
    # A chunk is named by its position; its first character lets an import find it whatever the chunk size.
    starts = dict(
        Memory.objects.filter(pk__in=ids, source_chunk__isnull=False).values_list("pk", "source_chunk__start_char")
    )
    for m in batch:
        found = sources.get(m.pk, [])
        for source in found:
            if source["type"] == "document" and m.pk in starts:
                source["start_char"] = starts[m.pk]
        yield {
            "type": "memory",
            "kb": kb_names[m.kb_id],
            "id": m.pk,
            "user_id": _user(m),
            "text": m.text,
            "kind": m.kind,
            "entities": m.entities,
            "topics": m.topics,
            "importance": m.importance,
            "metadata": m.metadata,
            "valid_from": _iso(m.valid_from),
            "valid_to": _iso(m.valid_to),
            "retired_at": _iso(m.retired_at),
            "superseded_by": m.superseded_by_id,
            "retired_reason": m.retired_reason,
            "source": m.source,
            "sources": found,
            "mode": m.mode,
            "consolidated": m.consolidated,
            "quarantined": m.quarantined,
            "quarantine_reason": m.quarantine_reason,
            "created_at": _iso(m.created_at),
        }


def json_lines(rows: Iterator[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"
