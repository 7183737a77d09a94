"""What webhooks do when signalled: a bot is told a job of its failed or its LLM budget is spent, and the jobs' sweep,
every minute, queues the deliveries whose retry is due."""

from __future__ import annotations

from django.dispatch import receiver

from kbsite.signals import budget_spent, job_failed, jobs_healed
from kbsite.webhooks.events import EventType
from kbsite.webhooks.services import deliveries_due_queue, event_emit


@receiver(jobs_healed)
def deliveries_due(sender, **kwargs) -> dict[str, int]:
    return {"webhook_retries": deliveries_due_queue()}


@receiver(job_failed)
def job_failed_tell(sender, *, job, error: str | None = None, retry_at=None, **kwargs) -> None:
    """Tell the bot whose KB a failed job ran for (a job of no KB belongs to no bot, and tells no one). ``error``
    and ``retry_at``: what was written to its row without updating ``job`` (the job's own, otherwise)."""
    if job.kb_id is None:
        return
    data = {
        "job": job.pk,
        "kind": job.kind,
        "kb": job.kb.name,
        "target": job.target,
        "error": job.error if error is None else error,
        "tries": job.tries,
        "retry_at": (retry_at or job.retry_at).isoformat() if (retry_at or job.retry_at) else None,
    }
    event_emit(bot_id=job.kb.bot_id, type=EventType.JOB_FAILED, data=data)


@receiver(budget_spent)
def budget_spent_tell(sender, *, bot_id: int, data: dict, **kwargs) -> None:
    """Tell the bot that its LLM tokens of the day are spent (``data``: the day, the budget, what was spent, what
    its work does now)."""
    event_emit(bot_id=bot_id, type=EventType.BUDGET_SPENT, data=data)
