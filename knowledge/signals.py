"""What the knowledge app tells others (``document_indexed``), and the folder sync it queues when a job worker is
ready (besides the schedule)."""

from __future__ import annotations

import logging

from django.dispatch import Signal, receiver

from kbsite.signals import worker_ready

logger = logging.getLogger(__name__)

# Sent when a document's indexing job has finished (``document``: its chunks are in place). Memories mines
# uploaded and sent documents for facts that cite their chunks (memories/signals.py).
document_indexed = Signal()


@receiver(worker_ready)
def worker_is_ready(sender, **kwargs) -> None:
    from knowledge.services import enqueue_sync

    # Every worker says so when it starts; enqueue_sync keeps a single sync waiting.
    try:
        enqueue_sync()
    except Exception:  # a worker must start even if the database is not reachable yet
        logger.exception("could not queue the knowledge sync at worker start")
