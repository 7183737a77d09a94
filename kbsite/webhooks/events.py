"""The event types a webhook endpoint may subscribe to, and the data of the base app's own (a job failed, the LLM
budget spent)."""

from __future__ import annotations

from django.db import models


class EventType(models.TextChoices):
    MEMORY_CREATED = "memory.created", "memory.created: a fact was stored"
    MEMORY_SUPERSEDED = "memory.superseded", "memory.superseded: a fact was replaced by a newer one"
    MEMORY_RETIRED = "memory.retired", "memory.retired: a fact was retired (forgotten, by hand)"
    MEMORY_DELETED = "memory.deleted", "memory.deleted: a fact was deleted for good (its id; its text is gone)"
    REVIEW_OPENED = "review.opened", "review.opened: a supersession or conflict awaits review"
    JOB_FAILED = "job.failed", "job.failed: a background job failed"
    USER_ERASED = "user.erased", "user.erased: an end user was erased"
    DOCUMENT_INDEXED = "document.indexed", "document.indexed: a document's chunks are searchable"
    BUDGET_SPENT = "budget.spent", "budget.spent: the bot's LLM tokens of the day are spent"


def job_failed(job, *, error: str | None = None, retry_at=None) -> None:
    """Tell the bot whose KB a failed job ran for (a job of no KB belongs to no bot, and tells no one). ``error``
    and ``retry_at``: what was written to its row without updating ``job`` (the job's own, otherwise)."""
    from kbsite.webhooks.services import event_emit  # the services import the models, which import the job model

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


def budget_spent(bot_id: int, data: dict) -> None:
    """Tell the bot that its LLM tokens of the day are spent (``data``: the day, the budget, what was spent, what
    its work does now)."""
    from kbsite.webhooks.services import event_emit  # the services import the models, which import the job model

    event_emit(bot_id=bot_id, type=EventType.BUDGET_SPENT, data=data)
