"""Export as JSON Lines: a whole KB, or everything held about one end user, read in chunks and streamed, each row
written by its record's serializer (:func:`memories.rights.records.record`)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from kbsite.models import EndUser, KnowledgeBase
from knowledge.models import Document
from memories.models import Edge, Insight, Memory, Message, Session
from memories.rights.records import FORMAT_VERSION, record
from memories.selectors import sources_of


def _user(row) -> str | None:
    return row.end_user.external_id if row.end_user_id else None


def records(*, kbs: list[KnowledgeBase], end_user: EndUser | None = None) -> Iterator[dict]:
    """Everything held in ``kbs`` (about ``end_user`` only, when given) as records of the export format
    (:mod:`memories.rights.records`): the user(s), sessions, turns, documents with their content, memories
    live and retired with provenance and validity, insights and graph edges. Read in chunks, never all at once."""
    kb_names = {kb.pk: kb.name for kb in kbs}

    def owned(queryset: QuerySet, owner: str = "end_user") -> QuerySet:
        queryset = queryset.filter(kb__in=kbs)
        return queryset.filter(**{owner: end_user}) if end_user else queryset

    yield record(
        "export",
        version=FORMAT_VERSION,
        kbs=sorted(kb_names.values()),
        user_id=end_user.external_id if end_user else None,
        exported_at=timezone.now(),
    )
    users = [end_user] if end_user else EndUser.objects.filter(bot=kbs[0].bot) if kbs else []
    for user in users:
        yield record("user", user, user_id=user.external_id)
    yield from _sessions(owned(Session.objects.select_related("end_user")), kb_names)
    yield from _turns(owned(Message.objects.select_related("session"), owner="session__end_user"), kb_names)
    yield from _documents(owned(Document.objects.present().select_related("end_user")), kb_names)
    yield from _memories(owned(Memory.objects.select_related("end_user")), kb_names)
    yield from _insights(owned(Insight.objects.select_related("end_user")), kb_names)
    yield from _edges(owned(Edge.objects.select_related("src__end_user", "dst"), owner="src__end_user"), kb_names)


def _sessions(sessions: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    """Session records; the extraction and archive cursors as the external ids of the turns they stand at."""
    sessions = sessions.annotate(
        extracted_turn=Subquery(Message.objects.filter(pk=OuterRef("extracted_through")).values("external_id")),
        archived_turn=Subquery(Message.objects.filter(pk=OuterRef("archived_through")).values("external_id")),
    )
    for s in sessions.order_by("id").iterator(chunk_size=500):
        yield record(
            "session",
            s,
            kb=kb_names[s.kb_id],
            session_id=s.external_id,
            user_id=_user(s),
            extracted_through=s.extracted_turn,
            archived_through=s.archived_turn,
        )


def _turns(turns: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    for m in turns.order_by("id").iterator(chunk_size=1000):
        yield record("turn", m, kb=kb_names[m.kb_id], session_id=m.session.external_id)


def _documents(documents: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    for d in documents.order_by("id").iterator(chunk_size=100):
        yield record(
            "document",
            d,
            kb=kb_names[d.kb_id],
            user_id=_user(d),
            metadata={k: v for k, v in d.metadata.items() if k != "file"},  # the stored file stays behind
        )


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
    sources = sources_of(ids)
    # A chunk is named by its position; its first character lets an import find it whatever the chunk size.
    starts = dict(
        Memory.objects.filter(pk__in=ids, source_chunk__isnull=False).values_list("pk", "source_chunk__start_char")
    )
    for m in batch:
        found = sources.get(m.pk, [])
        for source in found:
            if source["type"] == "document" and m.pk in starts:
                source["start_char"] = starts[m.pk]
        yield record(
            "memory", m, kb=kb_names[m.kb_id], user_id=_user(m), superseded_by=m.superseded_by_id, sources=found
        )


def _insights(insights: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    for i in insights.prefetch_related("memories").order_by("id").iterator(chunk_size=500):
        memories = sorted(m.pk for m in i.memories.all())
        yield record("insight", i, kb=kb_names[i.kb_id], user_id=_user(i), memories=memories)


def _edges(edges: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    for e in edges.order_by("id").iterator(chunk_size=1000):
        yield record(
            "edge", e, kb=kb_names[e.kb_id], user_id=_user(e.src), src=e.src.name, dst=e.dst.name, memory=e.memory_id
        )


def json_lines(rows: Iterator[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"
