"""What webhooks do when signalled: the jobs' sweep, every minute, queues the deliveries whose retry is due."""

from __future__ import annotations

from django.dispatch import receiver

from kbsite.signals import jobs_healed
from kbsite.webhooks.services import deliveries_due_queue


@receiver(jobs_healed)
def deliveries_due(sender, **kwargs) -> dict[str, int]:
    return {"webhook_retries": deliveries_due_queue()}
