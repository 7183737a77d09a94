"""The event types a webhook endpoint may subscribe to (the base app's own are told by ``receivers.py``)."""

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
