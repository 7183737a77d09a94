"""What memories does when signalled: KB schedules follow their KB; indexed uploads are mined.

Keep each KB's consolidation schedule in step with the KB, however it is changed (API, admin, shell); mine an
indexed upload for facts.
"""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from kbsite import jobs
from kbsite.models import KnowledgeBase
from kbsite.signals import jobs_healed
from knowledge.models import Document
from knowledge.signals import document_indexed
from memories import reembedding
from memories.consolidation import kb_schedule_sync, schedule_name
from memories.ingest import document_facts_queue
from memories.ingest.claims import claims_of_stopped_runs_release
from memories.ingest.inbox import claims_orphaned_return


@receiver(post_save, sender=KnowledgeBase)
def kb_saved(sender, instance: KnowledgeBase, **kwargs) -> None:
    kb_schedule_sync(kb=instance)


@receiver(post_delete, sender=KnowledgeBase)
def kb_deleted(sender, instance: KnowledgeBase, **kwargs) -> None:
    from django_q.models import Schedule

    Schedule.objects.filter(name=schedule_name(instance)).delete()


@receiver(jobs_healed)
def jobs_were_healed(sender, **kwargs) -> dict[str, int]:
    """Hand back what stopped runs left: session claims, and inbox files claimed but never queued; and keep
    re-embedding going while stored vectors are another model's than the configured one."""
    due = reembedding.reembed_due()
    if due:
        jobs.task_enqueue("memories.tasks.reembed", group="reembed")
    return {"claims": claims_of_stopped_runs_release(), "inbox_files": claims_orphaned_return(), "reembed": due}


@receiver(document_indexed)
def document_was_indexed(sender, document: Document, **kwargs) -> None:
    document_facts_queue(document=document)
