"""The memory domain's schedules: the inbox scan, and one consolidation schedule per always-on KB."""

from __future__ import annotations

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from kbsite.schedules import migrated_fully, schedule_every
from memories.consolidation import schedules_sync_all


def ensure_schedules(using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """After migrate (connected in MemoriesConfig.ready)."""
    if not migrated_fully(using):
        return
    schedule_every(name="inbox-scan", func="memories.tasks.scan_inboxes", minutes=settings.INBOX_SCAN_MINUTES)
    schedules_sync_all()
