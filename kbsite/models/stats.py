"""DailyStat: what a knowledge base received, served and spent on one day, for the dashboard; DailyUsage: what a
bot spent on one day, per KB and end user, for ``GET /api/v1/usage/``."""

from __future__ import annotations

from django.db import models

from kbsite.models.bots import Bot
from kbsite.models.end_users import EndUser
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


class DailyUsage(models.Model):
    """What a bot spent on one day (UTC) for one KB and one end user: its recalls, context blocks and answers
    (``requests``), the chat proxy's context blocks, and its jobs; added to as it happens
    (:func:`kbsite.stats.usage_add`).

    ``kb`` is empty for what spans the bot's always-on KBs (a context block); ``end_user`` for what served no end
    user (shared rows only, or a job of shared input)."""

    day = models.DateField()
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="daily_usage")
    kb = models.ForeignKey(KnowledgeBase, null=True, blank=True, on_delete=models.CASCADE, related_name="daily_usage")
    end_user = models.ForeignKey(EndUser, null=True, blank=True, on_delete=models.CASCADE, related_name="daily_usage")
    requests = models.PositiveBigIntegerField(default=0, help_text="Recalls, context blocks and answers served.")
    jobs = models.PositiveBigIntegerField(default=0, help_text="Job runs finished.")
    llm_calls = models.PositiveBigIntegerField(default=0)
    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    embeddings = models.PositiveBigIntegerField(default=0, help_text="Texts embedded (a query is one).")
    server_ms = models.PositiveBigIntegerField(default=0, help_text="Time spent serving and running, in ms.")

    class Meta:
        ordering = ["-day", "bot", "kb", "end_user"]
        constraints = [
            models.UniqueConstraint(
                fields=["day", "bot", "kb", "end_user"], name="one_daily_usage_per_kb_and_user", nulls_distinct=False
            )
        ]
        verbose_name = "daily usage"
        verbose_name_plural = "daily usage"

    def __str__(self) -> str:
        return f"{self.bot} / {self.kb or 'all KBs'} / {self.end_user or 'shared'} on {self.day}"
