"""Reads of the memory domain that need more than a queryset method."""

from __future__ import annotations

from django.db.models import Count, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from kbsite.models import Bot, JobRun, KnowledgeBase, Mode
from knowledge.models import Document
from memories.models import Insight, Memory, Message


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
    return queryset.annotate(
        memory_count=_count(Memory.objects.live()),
        retired_count=_count(Memory.objects.retired()),
        quarantined_count=_count(Memory.objects.live().filter(quarantined=True)),
        llm_memory_count=_count(Memory.objects.live().filter(mode=Mode.LLM)),
        heuristic_memory_count=_count(Memory.objects.live().filter(mode=Mode.HEURISTIC)),
        insight_count=_count(Insight.objects.filter(retired_at__isnull=True)),
        document_count=_count(Document.objects.present()),
        # Turns past their session's extraction cursor: posted, not yet processed.
        pending_messages=_count(Message.objects.filter(id__gt=F("session__extracted_through"))),
        pending_jobs=_count(JobRun.objects.filter(Q(status=JobRun.Status.QUEUED) | Q(status=JobRun.Status.RUNNING))),
        failed_jobs=_count(JobRun.objects.filter(status=JobRun.Status.FAILED)),
    )
