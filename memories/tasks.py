"""Background jobs (django-q2). Thin: take ids, return early if the row is gone, call a service."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from kbsite.models import JobRun, KnowledgeBase
from memories import consolidation, ingest, services


def job_run(job_id: int, kinds: tuple[str, ...], work: Callable[[JobRun], JobRun]) -> str | None:
    """Run ``work`` on the job, unless it is gone, already finished or of another kind.

    An unexpected error (a bug, not a provider failure) still marks the run failed with its error, so an
    operator sees it among the failed jobs and can retry it, before django-q records the task as failed.
    """
    job = JobRun.objects.select_related("kb__bot").filter(pk=job_id).first()
    # RUNNING: django-q re-delivers a task whose worker died; the cursor guard makes a re-run safe.
    if job is None or job.status not in (JobRun.Status.QUEUED, JobRun.Status.RUNNING) or job.kind not in kinds:
        return None
    try:
        return work(job).status
    except Exception as exc:
        JobRun.objects.filter(pk=job.pk).update(
            status=JobRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        raise


def extract_pending(job_id: int) -> str | None:
    return job_run(job_id, (JobRun.Kind.INGEST_MESSAGES,), lambda job: ingest.extract_pending(job=job))


def ingest_item(job_id: int) -> str | None:
    kinds = (JobRun.Kind.INGEST_TEXT, JobRun.Kind.INGEST_FILE)
    return job_run(job_id, kinds, lambda job: ingest.item_ingest(job=job))


def ingest_inbox_file(job_id: int) -> str | None:
    return job_run(job_id, (JobRun.Kind.INGEST_FILE,), lambda job: ingest.inbox_file_ingest(job=job))


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
    return job_run(job_id, (JobRun.Kind.CONSOLIDATE,), lambda job: consolidation.kb_consolidate(job=job))
