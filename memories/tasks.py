"""Background jobs (django-q2). Thin: take ids, return early if the row is gone, call a service."""

from __future__ import annotations

from django.db import transaction
from django_q.tasks import async_task

from memories import consolidation, ingest, services
from memories.models import JobRun, KnowledgeBase


def _job(job_id: int, kind: str) -> JobRun | None:
    job = JobRun.objects.select_related("kb__bot", "ingest_item__kb__bot").filter(pk=job_id).first()
    # RUNNING: django-q re-delivers a task whose worker died; the cursor guard makes a re-run safe.
    if job is None or job.status not in (JobRun.Status.QUEUED, JobRun.Status.RUNNING):
        return None  # gone, or already finished by an earlier delivery of this task
    return job if job.kind == kind else None


def extract_pending(job_id: int) -> str | None:
    job = _job(job_id, JobRun.Kind.INGEST_MESSAGES)
    return ingest.extract_pending(job=job).status if job else None


def ingest_item(job_id: int) -> str | None:
    job = _job(job_id, JobRun.Kind.INGEST_TEXT) or _job(job_id, JobRun.Kind.INGEST_FILE)
    return ingest.item_ingest(job=job).status if job else None


def ingest_inbox_file(job_id: int) -> str | None:
    job = _job(job_id, JobRun.Kind.INGEST_FILE)
    return ingest.inbox_file_ingest(job=job).status if job else None


def scan_inboxes() -> int:
    return ingest.inbox_scan()


def embed_missing(kb_id: int | None = None) -> int:
    return services.memories_embed_missing(kb_id=kb_id)


def enqueue_embed_missing(*, kb_id: int | None) -> None:
    transaction.on_commit(lambda: async_task("memories.tasks.embed_missing", kb_id, group=f"embed-{kb_id}"))


def warm_up(hold_seconds: float = 0.0) -> str:
    """Load the embedding model in this worker process (optionally keep the worker busy a moment)."""
    import time

    from memories import embeddings

    embeddings.warm_up()
    time.sleep(hold_seconds)
    return embeddings.get_embedder().name


def consolidate_kb(kb_id: int) -> str | None:
    """Scheduled consolidation of one always-on KB."""
    kb = KnowledgeBase.objects.filter(pk=kb_id, is_active=True).first()
    if kb is None:
        return None
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE, target="scheduled")
    return consolidation.kb_consolidate(job=job).status


def run_consolidation(job_id: int) -> str | None:
    job = _job(job_id, JobRun.Kind.CONSOLIDATE)
    return consolidation.kb_consolidate(job=job).status if job else None
