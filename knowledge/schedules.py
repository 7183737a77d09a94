"""The knowledge app's schedule: the sync of every KB's knowledge/ folder into the index."""

from __future__ import annotations

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from kbsite.schedules import migrated_fully, schedule_every


def ensure_schedules(using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """After migrate (connected in KnowledgeConfig.ready)."""
    if migrated_fully(using):
        schedule_every(
            name="knowledge-sync",
            func="knowledge.tasks.sync_knowledge_on_schedule",
            minutes=settings.KNOWLEDGE_SYNC_MINUTES,
        )
