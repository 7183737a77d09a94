"""DailyStat: what a knowledge base received, served and spent on one day, for the dashboard."""

from __future__ import annotations

from django.db import models

from kbsite.models.knowledge_bases import KnowledgeBase


class DailyStat(models.Model):
    """What a knowledge base received, served and spent on one day (UTC), added to as it happens
    (:func:`kbsite.stats.stats_add`), so that the dashboard draws 30 days from 30 rows a KB instead of counting
    turns, recalls and jobs."""

    day = models.DateField()
    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="daily_stats")
    turns = models.PositiveBigIntegerField(default=0, help_text="Chat turns received.")
    texts = models.PositiveBigIntegerField(default=0, help_text="Texts and inbox files received.")
    documents = models.PositiveBigIntegerField(default=0, help_text="Documents written or uploaded.")
    recalls = models.PositiveBigIntegerField(default=0, help_text="Recalls served (search, context, ask, tools).")
    llm_calls = models.PositiveBigIntegerField(default=0, help_text="LLM calls made by its jobs and answers.")
    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    facts_added = models.PositiveBigIntegerField(default=0)
    facts_superseded = models.PositiveBigIntegerField(default=0)
    facts_quarantined = models.PositiveBigIntegerField(default=0)
    jobs_succeeded = models.PositiveBigIntegerField(default=0)
    jobs_failed = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-day", "kb"]
        constraints = [models.UniqueConstraint(fields=["day", "kb"], name="one_daily_stat_per_kb")]
        verbose_name = "daily statistics"
        verbose_name_plural = "daily statistics"

    def __str__(self) -> str:
        return f"{self.kb} on {self.day}"
