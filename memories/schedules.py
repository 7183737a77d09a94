"""Schedules live in code and are created idempotently after every migrate."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

logger = logging.getLogger(__name__)


def ensure_schedules(using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    from django_q.models import Schedule

    from memories.consolidation import schedules_sync_all

    executor = MigrationExecutor(connections[using])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        # Migrated to an earlier state (backwards, or to a named migration): the tables need not match the
        # models the sync reads with. The schedules are brought in line by the next full migrate.
        logger.info("schedules not synced: the database is not at its latest migrations")
        return
    for name, func, minutes in [
        ("inbox-scan", "memories.tasks.scan_inboxes", settings.INBOX_SCAN_MINUTES),
        ("knowledge-sync", "knowledge.tasks.sync_knowledge", settings.KNOWLEDGE_SYNC_MINUTES),
    ]:
        Schedule.objects.update_or_create(
            name=name,
            defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1},
        )
    schedules_sync_all()
