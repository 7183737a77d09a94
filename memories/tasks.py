"""Background jobs (django-q2). Thin: take ids, call a service."""

from __future__ import annotations

from django.db import transaction
from django_q.tasks import async_task

from memories import services


def embed_missing(kb_id: int | None = None) -> int:
    return services.memories_embed_missing(kb_id=kb_id)


def enqueue_embed_missing(*, kb_id: int | None) -> None:
    transaction.on_commit(lambda: async_task("memories.tasks.embed_missing", kb_id, group=f"embed-{kb_id}"))
