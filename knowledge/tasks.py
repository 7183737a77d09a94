"""Background tasks of the knowledge app (django-q2): take a job, call a service (see kbsite.jobs)."""

from __future__ import annotations

from kbsite.jobs import job_run, job_task
from kbsite.models import JobRun

from . import services


@job_task(JobRun.Kind.SYNC)
def sync_knowledge(job: JobRun) -> JobRun:
    return services.knowledge_sync_all(job=job)


def sync_knowledge_on_schedule() -> str:
    """The scheduled sync of every KB's knowledge/ folder: its run record is kept only when the sync changed
    something or failed, so a quiet folder leaves no trail."""
    job = JobRun.objects.create(kind=JobRun.Kind.SYNC, target="scheduled")
    job = job_run(job, lambda job: services.knowledge_sync_all(job=job))
    if job.status == JobRun.Status.SUCCEEDED and not job.detail:
        job.delete()
    return job.status


@job_task(JobRun.Kind.DOCUMENT, retry=services.document_retry, release=services.document_release)
def process_document(job: JobRun) -> JobRun:
    return services.document_process(job=job)
