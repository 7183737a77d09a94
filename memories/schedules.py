"""Schedules live in code and are created idempotently after every migrate."""

from __future__ import annotations

from django.conf import settings


def ensure_schedules(**kwargs) -> None:
    from django_q.models import Schedule

    from memories.consolidation import schedules_sync_all

    for name, func, minutes in [
        ("inbox-scan", "memories.tasks.scan_inboxes", settings.INBOX_SCAN_MINUTES),
        ("knowledge-sync", "knowledge.tasks.sync_knowledge", settings.KNOWLEDGE_SYNC_MINUTES),
    ]:
        Schedule.objects.update_or_create(
            name=name,
            defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1},
        )
    schedules_sync_all()
