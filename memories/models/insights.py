"""Insight: what consolidation draws from several memories, linking back to them."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from kbsite.languages.fulltext import RowConfig
from kbsite.models import EndUser, KnowledgeBase, Mode
from memories.models.memory import Memory
from memories.models.querysets import LifeSpanQuerySet


class Insight(models.Model):
    """An insight drawn from several memories, linking back to them."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="insights")
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="insights",
        help_text="Whose memories it links; none: shared ones only.",
    )
    text = models.TextField()
    language = models.CharField(max_length=8, blank=True, help_text="The language it is in (a code; empty: not told).")
    memories = models.ManyToManyField(Memory, related_name="insights", blank=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=RowConfig()),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.LLM)
    job_run = models.ForeignKey(
        "kbsite.JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="insights"
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = LifeSpanQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "insight"
        indexes = [
            GinIndex(fields=["search_vector"], name="insight_fts_gin"),
            # Shared insights only: an end user's are compared exactly (index on end_user).
            HnswIndex(
                name="insight_shared_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(end_user__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]
