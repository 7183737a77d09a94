"""What the base app does when signalled: it prepares each job worker as it starts.

A job worker prepares the embedding model as it starts, then says it is ready (``worker_ready``).
"""

from __future__ import annotations

import gc
import logging

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django_q.signals import post_spawn

from kbsite import jobs
from kbsite.ai import embeddings
from kbsite.languages import detection
from kbsite.models import KnowledgeBase
from kbsite.models.knowledge_bases import folder_trash
from kbsite.signals import worker_ready

logger = logging.getLogger(__name__)


@receiver(post_delete, sender=KnowledgeBase)
def kb_deleted(sender, instance: KnowledgeBase, **kwargs) -> None:
    """A deleted KB's folder goes to the trash once the deletion is committed (API, admin, a bot's deletion)."""
    # Both places are worked out now: once the deletion is done, Django sets the instance's id to None.
    folder, place = instance.folder, instance.trash_place()
    transaction.on_commit(lambda: folder_trash(folder, place))


@receiver(post_spawn)
def worker_started(sender, proc_name: str = "", **kwargs) -> None:
    """Load the local model and prepare its kernels before the worker takes its first job: without it the
    first jobs of a worker embed about 15 % slower (measured in-process on LoCoMo's first conversations)."""
    if proc_name == "MainProcess":
        return  # a task run inline (sync mode, tests), not a worker process of the cluster starting
    try:
        detection.detect("what do you remember of me")  # its model loads once, not in the first job
        embeddings.warm_up()
    except Exception:  # a worker must start even if the model cannot load; its jobs will report why
        logger.exception("could not prepare the embedding model at worker start")
    # The model and Django are loaded for the life of the worker: keep their objects out of the cyclic
    # collector's full passes, each of which took about 0.3 s per worker during a LoCoMo ingest.
    gc.freeze()
    # What a crash or a kill left behind is handed back now, not in minutes: every worker sweeps as it starts.
    try:
        jobs.jobs_heal()
    except Exception:  # a worker must start even if the database is not reachable yet
        logger.exception("could not heal the jobs at worker start")
    logger.info("kbsite worker warm: %s", proc_name)  # manage.py serve tells the operator when all are
    worker_ready.send(sender=worker_started, proc_name=proc_name)
