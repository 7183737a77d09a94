"""Sync the knowledge folders into the index whenever a job worker starts (and on the schedule)."""

from __future__ import annotations

import logging

from django.dispatch import receiver
from django_q.signals import post_spawn

logger = logging.getLogger(__name__)


@receiver(post_spawn)
def worker_started(sender, proc_name: str = "", **kwargs) -> None:
    from knowledge.services import enqueue_sync

    if proc_name == "MainProcess":
        return  # a task run inline (sync mode, tests), not a worker process of the cluster starting
    # Every worker says so when it starts; enqueue_sync keeps a single sync waiting.
    try:
        enqueue_sync()
    except Exception:  # a worker must start even if the database is not reachable yet
        logger.exception("could not queue the knowledge sync at worker start")
