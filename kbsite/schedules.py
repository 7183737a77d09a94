"""Schedules live in code: each app declares its own and creates them idempotently after every full migrate."""

from __future__ import annotations

import logging

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

logger = logging.getLogger(__name__)


def migrated_fully(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the database is at its latest migrations. After a migrate backwards (or to a named migration)
    the tables need not match the models a schedule sync reads with; the next full migrate syncs them."""
    executor = MigrationExecutor(connections[using])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        logger.info("schedules not synced: the database is not at its latest migrations")
        return False
    return True


def ensure_schedules(using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """The base app's schedules: the jobs' healing, every minute; the prune of old webhook deliveries, every hour
    (connected in KbsiteConfig.ready)."""
    if migrated_fully(using):
        schedule_every(name="jobs-heal", func="kbsite.tasks.jobs_heal", minutes=1)
        schedule_every(name="webhook-deliveries-prune", func="kbsite.webhooks.tasks.deliveries_old_prune", minutes=60)


def schedule_every(*, name: str, func: str, minutes: int) -> None:
    """Run the task ``func`` every ``minutes``, under the schedule ``name`` (created or brought up to date)."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name=name, defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1}
    )
