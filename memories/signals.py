"""Keep each KB's consolidation schedule in step with the KB, however it is changed (API, admin, shell)."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from kbsite.models import KnowledgeBase
from memories.consolidation import kb_schedule_sync, schedule_name


@receiver(post_save, sender=KnowledgeBase)
def kb_saved(sender, instance: KnowledgeBase, **kwargs) -> None:
    kb_schedule_sync(kb=instance)


@receiver(post_delete, sender=KnowledgeBase)
def kb_deleted(sender, instance: KnowledgeBase, **kwargs) -> None:
    from django_q.models import Schedule

    Schedule.objects.filter(name=schedule_name(instance)).delete()
