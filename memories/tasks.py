"""Background tasks of the memory domain (django-q2): take a job, call a service (see kbsite.jobs)."""

from __future__ import annotations

from kbsite.jobs import job_run, job_task
from kbsite.models import JobRun, KnowledgeBase
from memories import archive, consolidation, ingest, reembedding, services
from memories.ingest.claims import claims_release
from memories.ingest.inbox import file_release
from memories.ingest.items import item_release
from memories.proxy import recording


@job_task(JobRun.Kind.INGEST_MESSAGES, release=claims_release)
def extract_pending(job: JobRun) -> JobRun:
    return ingest.extract_pending(job=job)


@job_task(JobRun.Kind.INGEST_TEXT, retry=ingest.item_retry, release=item_release)
def ingest_item(job: JobRun) -> JobRun:
    return ingest.item_ingest(job=job)


@job_task(JobRun.Kind.INGEST_FILE, retry=ingest.file_retry, release=file_release)
def ingest_inbox_file(job: JobRun) -> JobRun:
    return ingest.inbox_file_ingest(job=job)


@job_task(JobRun.Kind.RECORD_CHAT, retry=recording.chat_record_retry)
def record_chat(job: JobRun) -> JobRun:
    return recording.chat_record(job=job)


@job_task(JobRun.Kind.CONSOLIDATE)
def run_consolidation(job: JobRun) -> JobRun:
    return consolidation.kb_consolidate(job=job)


@job_task(JobRun.Kind.ARCHIVE, retry=archive.archive_retry)
def archive_session(job: JobRun) -> JobRun:
    return archive.session_archive(job=job)


def consolidate_kb(kb_id: int) -> str | None:
    """Scheduled consolidation of one always-on KB: its own job, run in this worker."""
    kb = KnowledgeBase.objects.filter(pk=kb_id, is_active=True).first()
    if kb is None:
        return None
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE, target="scheduled")
    return job_run(job, lambda job: consolidation.kb_consolidate(job=job)).status


def scan_inboxes() -> int:
    return ingest.inbox_scan()


def embed_missing(kb_id: int | None = None) -> int:
    return services.memories_embed_missing(kb_id=kb_id)


def reembed() -> None:
    """Re-embed stored vectors with the configured model for a while, queueing the rest (memories.reembedding)."""
    reembedding.reembed_continue()
