"""Keep each KB's consolidation schedule in step with the KB, however it is changed (API, admin, shell);
prepare the embedding model in each job worker as it starts."""

from __future__ import annotations

import gc
import logging

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django_q.signals import post_spawn

from kbsite.models import KnowledgeBase

logger = logging.getLogger(__name__)


@receiver(post_save, sender=KnowledgeBase)
def kb_saved(sender, instance: KnowledgeBase, **kwargs) -> None:
    from memories.consolidation import kb_schedule_sync

    kb_schedule_sync(kb=instance)


@receiver(post_delete, sender=KnowledgeBase)
def kb_deleted(sender, instance: KnowledgeBase, **kwargs) -> None:
    from django_q.models import Schedule

    from memories.consolidation import schedule_name

    Schedule.objects.filter(name=schedule_name(instance)).delete()


@receiver(post_spawn)
def worker_started(sender, proc_name: str = "", **kwargs) -> None:
    """Load the local model and prepare its kernels before the worker takes its first job: without it the
    first jobs of a worker embed about 15 % slower (measured in-process on LoCoMo's first conversations)."""
    from memories import embeddings

    if proc_name == "MainProcess":
        return  # a task run inline (sync mode, tests), not a worker process of the cluster starting
    try:
        embeddings.warm_up()
    except Exception:  # a worker must start even if the model cannot load; its jobs will report why
        logger.exception("could not prepare the embedding model at worker start")
    # The model and Django are loaded for the life of the worker: keep their objects out of the cyclic
    # collector's full passes, each of which took about 0.3 s per worker during a LoCoMo ingest.
    gc.freeze()
