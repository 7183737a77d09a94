"""Background jobs of the knowledge app (django-q2). Thin: take ids, call a service."""

from __future__ import annotations

from kbsite.models import JobRun
from memories.tasks import job_run

from . import archive, services


def sync_knowledge(job_id: int | None = None) -> str | None:
    """Sync every KB's knowledge/ folder.

    The schedule calls it without a job: its run record is kept only when the
    sync changed something or failed, so a quiet folder leaves no trail.
    """
    if job_id:
        return job_run(job_id, (JobRun.Kind.SYNC,), lambda job: services.knowledge_sync_all(job=job))
    job = services.knowledge_sync_all(job=JobRun.objects.create(kind=JobRun.Kind.SYNC, target="scheduled"))
    if job.status == JobRun.Status.SUCCEEDED and not job.detail:
        job.delete()
    return job.status


def process_document(job_id: int) -> str | None:
    return job_run(job_id, (JobRun.Kind.DOCUMENT,), lambda job: services.document_process(job=job))


def archive_session(job_id: int) -> str | None:
    return job_run(job_id, (JobRun.Kind.ARCHIVE,), lambda job: archive.session_archive(job=job))
