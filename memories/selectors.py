"""Reads of the memory domain that need more than a queryset method."""

from __future__ import annotations

from django.db.models import Count, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from kbsite.models import Bot, JobRun, KnowledgeBase, Mode
from kbsite.replicas import reads
from knowledge.models import Document
from memories.models import Insight, Memory, Message, source_entries


def _count(queryset, field: str = "kb"):
    """A correlated COUNT(*) subquery on ``queryset`` grouped by ``field`` = outer KB."""
    counted = queryset.filter(**{field: OuterRef("pk")}).order_by().values(field).annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def kb_list_with_small_counts():
    """Knowledge bases with their bots and their counts of live insights and present documents (few rows: the
    admin's list counts memories, turns and jobs through the dashboard's cache)."""
    return KnowledgeBase.objects.select_related("bot").annotate(
        insight_count=_count(Insight.objects.filter(retired_at__isnull=True)),
        document_count=_count(Document.objects.present()),
    )


def kb_list_with_counts(*, bot: Bot | None = None):
    """Knowledge bases annotated with their counts of memories, insights, documents, waiting turns and jobs, in one
    query (no N+1)."""
    queryset = KnowledgeBase.objects.select_related("bot")
    if bot is not None:
        queryset = queryset.for_bot(bot)
    # Live memories are counted per mode, not quarantined (each an index-only scan of memory_kb_live's entries of
    # that mode), and the quarantined ones apart (few): a KB of a million memories was counted in 1.9 s by heap
    # scans, one for the live ones and one per mode.
    in_use = Memory.objects.live().filter(quarantined=False)
    quarantined = Memory.objects.live().filter(quarantined=True)
    by_mode = {mode: _count(in_use.filter(mode=mode)) for mode in Mode.values}
    return queryset.annotate(
        memory_count=sum(by_mode.values(), _count(quarantined)),
        retired_count=_count(Memory.objects.retired()),
        quarantined_count=_count(quarantined),
        llm_memory_count=by_mode[Mode.LLM] + _count(quarantined.filter(mode=Mode.LLM)),
        heuristic_memory_count=by_mode[Mode.HEURISTIC] + _count(quarantined.filter(mode=Mode.HEURISTIC)),
        insight_count=_count(Insight.objects.filter(retired_at__isnull=True)),
        document_count=_count(Document.objects.present()),
        # Turns past their session's extraction cursor: posted, not yet processed.
        pending_messages=_count(Message.objects.filter(id__gt=F("session__extracted_through"))),
        pending_jobs=_count(JobRun.objects.filter(Q(status=JobRun.Status.QUEUED) | Q(status=JobRun.Status.RUNNING))),
        failed_jobs=_count(JobRun.objects.filter(status=JobRun.Status.FAILED)),
    )


SOURCES_SQL = """
    SELECT m.id, m.source_file, doc.slug, chunk.ordinal, src.sessions, src.turns
    FROM memories_memory m
    LEFT JOIN knowledge_chunk chunk ON chunk.id = m.source_chunk_id
    LEFT JOIN knowledge_document doc ON doc.id = chunk.document_id
    LEFT JOIN LATERAL (
        SELECT array_agg(s.external_id ORDER BY l.message_id) AS sessions,
               array_agg(msg.external_id ORDER BY l.message_id) AS turns
        FROM memories_memory_source_messages l
        JOIN memories_message msg ON msg.id = l.message_id
        JOIN memories_session s ON s.id = msg.session_id
        WHERE l.memory_id = m.id
    ) src ON true
    WHERE m.id = ANY(%s)"""


def sources_of(ids: list[int]) -> dict[int, list[dict]]:
    """The provenance of the memories ``ids`` (those that exist), by id, as ``Memory.sources()`` gives it."""
    if not ids:
        return {}
    with reads.cursor() as cursor:
        cursor.execute(SOURCES_SQL, [ids])
        rows = cursor.fetchall()
    return {
        pk: source_entries(
            list(zip(sessions or [], turns or [], strict=True)),
            (slug, ordinal) if slug is not None else None,
            source_file,
        )
        for pk, source_file, slug, ordinal, sessions, turns in rows
    }
