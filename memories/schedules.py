"""Schedules live in code and are created idempotently after every migrate."""

from __future__ import annotations

from django.conf import settings


def ensure_schedules(**kwargs) -> None:
    from django_q.models import Schedule

    from memories.consolidation import schedules_sync_all

    Schedule.objects.update_or_create(
        name="inbox-scan",
        defaults={
            "func": "memories.tasks.scan_inboxes",
            "schedule_type": Schedule.MINUTES,
            "minutes": settings.INBOX_SCAN_MINUTES,
            "repeats": -1,
        },
    )
    Schedule.objects.update_or_create(
        name="knowledge-sync",
        defaults={
            "func": "knowledge.tasks.sync_knowledge",
            "schedule_type": Schedule.MINUTES,
            "minutes": settings.KNOWLEDGE_SYNC_MINUTES,
            "repeats": -1,
        },
    )
    schedules_sync_all()
