"""What the knowledge app does when signalled: it syncs the folders once a job worker is ready.

Sync the knowledge folders once a job worker is ready (besides the schedule).
"""

from __future__ import annotations

import logging

from django.dispatch import receiver

from kbsite.signals import worker_ready
from knowledge.services import enqueue_sync

logger = logging.getLogger(__name__)


@receiver(worker_ready)
def worker_is_ready(sender, **kwargs) -> None:
    # Every worker says so when it starts; enqueue_sync keeps a single sync waiting.
    try:
        enqueue_sync()
    except Exception:  # a worker must start even if the database is not reachable yet
        logger.exception("could not queue the knowledge sync at worker start")
