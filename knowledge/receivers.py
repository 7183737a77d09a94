"""What the knowledge app does when signalled: it syncs the folders once a job worker is ready.

Sync the knowledge folders once a job worker is ready (besides the schedule).
"""

from __future__ import annotations

import logging

from django.dispatch import receiver

from kbsite.signals import jobs_healed, worker_ready
from knowledge.services import documents_orphaned_requeue, enqueue_sync

logger = logging.getLogger(__name__)


@receiver(jobs_healed)
def jobs_were_healed(sender, **kwargs) -> dict[str, int]:
    """Queue again the documents a stopped run left waiting."""
    return {"documents": documents_orphaned_requeue()}


@receiver(worker_ready)
def worker_is_ready(sender, **kwargs) -> None:
    # Every worker says so when it starts; enqueue_sync keeps a single sync waiting.
    try:
        enqueue_sync()
    except Exception:  # a worker must start even if the database is not reachable yet
        logger.exception("could not queue the knowledge sync at worker start")
