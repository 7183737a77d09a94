"""Inbox folders: files dropped into a KB's inbox/ are claimed, ingested and moved on.

A file dropped into ``<data dir>/<bot>/<kb>/inbox/`` is claimed once it has settled, turned into text and ingested,
then moved to ``processed/``, or to ``failed/`` with ``<name>.error.txt`` saying why.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from kbsite import jobs
from kbsite.models import JobRun, KnowledgeBase
from knowledge.extractors import ExtractionFailed, extract_text
from memories.ingest.facts import job_fail
from memories.ingest.items import item_ingest
from memories.models import IngestItem

CLAIM_DIR = ".processing"


def _stable(path: Path) -> bool:
    """A file that has stopped changing: not modified for INBOX_SETTLE_SECONDS."""
    try:
        return time.time() - path.stat().st_mtime >= settings.INBOX_SETTLE_SECONDS
    except FileNotFoundError:
        return False


def _unique(target: Path) -> Path:
    if not target.exists():
        return target
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S%f")
    return target.with_name(f"{target.stem}.{stamp}{target.suffix}")


def inbox_scan() -> int:
    """Claim every settled file in every active KB's inbox and queue it. Returns how many were queued."""
    queued = 0
    for kb in KnowledgeBase.objects.filter(is_active=True, bot__is_active=True):
        inbox = kb.inbox_dir
        if not inbox.is_dir():
            continue
        claims = inbox / CLAIM_DIR
        for path in sorted(inbox.iterdir()):
            if not path.is_file() or path.name.startswith(".") or not _stable(path):
                continue
            claims.mkdir(exist_ok=True)
            claimed = _unique(claims / path.name)
            try:
                # rename() is atomic: of two scanners, exactly one claims the file.
                os.rename(path, claimed)
            except FileNotFoundError:
                continue
            _queue_file(kb, claimed)
            queued += 1
    return queued


# A claimed file younger than this may still be getting its job (claim and queueing are not one step).
ORPHAN_GRACE_SECONDS = 60


def claims_orphaned_return() -> int:
    """Put claimed files that no waiting or running job works on back into their inbox (the process that claimed
    them stopped before queueing them; their job was deleted). Part of the jobs' healing. Returns how many."""
    live = set(
        JobRun.objects.filter(
            kind=JobRun.Kind.INGEST_FILE, status__in=[JobRun.Status.QUEUED, JobRun.Status.RUNNING]
        ).values_list("kb_id", "target")
    )
    returned = 0
    for kb in KnowledgeBase.objects.filter(is_active=True, bot__is_active=True):
        claims = kb.inbox_dir / CLAIM_DIR
        if not claims.is_dir():
            continue
        for path in claims.iterdir():
            try:
                young = time.time() - path.stat().st_mtime < ORPHAN_GRACE_SECONDS
            except FileNotFoundError:
                continue
            if not young and (kb.pk, str(path.relative_to(kb.folder))) not in live:
                os.rename(path, _unique(kb.inbox_dir / path.name))
                returned += 1
    return returned


def _queue_file(kb: KnowledgeBase, claimed: Path, item: IngestItem | None = None) -> JobRun:
    os.utime(claimed)  # the claim's age is measured from now
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_FILE, kb=kb, obj=item, target=str(claimed.relative_to(kb.folder)))


def inbox_file_ingest(*, job: JobRun) -> JobRun:
    """Extract a claimed inbox file, ingest its text, move it to processed/ (or failed/ with the reason). A retried
    file's item is resumed after the segments already applied, not extracted and started again."""
    kb = job.kb
    claimed = kb.folder / job.target
    name = claimed.name
    if not claimed.is_file():
        job.finish(status=JobRun.Status.SKIPPED, error="file is gone (already processed?)")
        return job
    job.start()
    if not isinstance(job.object, IngestItem):
        try:
            job.object = _file_item(kb, claimed)
        except ExtractionFailed as exc:
            _park_failed(job, claimed, str(exc))
            return job_fail(job, exc)
        job.save(update_fields=["object_type", "object_id"])
    item_ingest(job=job)
    if job.status == JobRun.Status.SUCCEEDED:
        kb.processed_dir.mkdir(parents=True, exist_ok=True)
        shutil.move(claimed, _unique(kb.processed_dir / name))
    else:
        _park_failed(job, claimed, job.error)
        job.save(update_fields=["detail"])
    return job


def _file_item(kb: KnowledgeBase, claimed: Path) -> IngestItem:
    """The ingest item of a claimed file: its text, if the file is within MAX_UPLOAD_BYTES and its text readable."""
    size = claimed.stat().st_size
    if size > settings.MAX_UPLOAD_BYTES:
        raise ExtractionFailed(
            f"the file is {size:,} bytes; the limit is {settings.MAX_UPLOAD_BYTES:,} (MAX_UPLOAD_BYTES)"
        )
    text = extract_text(claimed.name, claimed.read_bytes())
    return IngestItem.objects.create(
        kb=kb, kind=IngestItem.Kind.FILE, file_name=claimed.name, source=f"inbox:{claimed.name}", text=text
    )


def file_release(job: JobRun, reason: str) -> None:
    """Park the claimed file of a job that ended unexpectedly in failed/ with the reason (retried from there), and
    show its item failed."""
    claimed = job.kb.folder / job.target
    if claimed.is_file() and claimed.parent.name == CLAIM_DIR:
        _park_failed(job, claimed, reason)
        JobRun.objects.filter(pk=job.pk).update(detail=job.detail)
    IngestItem.objects.filter(pk=job.object_id, status=IngestItem.Status.PENDING).update(
        status=IngestItem.Status.FAILED, error=reason
    )


def _park_failed(job: JobRun, claimed: Path, reason: str) -> None:
    """Move the file to failed/ with ``<name>.error.txt`` beside it saying why."""
    failed_dir = job.kb.failed_dir
    failed_dir.mkdir(parents=True, exist_ok=True)
    target = _unique(failed_dir / claimed.name)
    shutil.move(claimed, target)
    target.with_name(target.name + ".error.txt").write_text(
        f"{timezone.now().isoformat()} could not ingest {claimed.name}:\n{reason}\n"
    )
    job.detail = {**job.detail, "failed_file": target.name}


def file_retry(job: JobRun) -> JobRun | None:
    """Move the failed file back among the claimed inbox files and queue it again."""
    kb = job.kb
    name = job.detail.get("failed_file") or Path(job.target).name
    failed = kb.failed_dir / name
    if not failed.is_file():
        return None
    failed.with_name(name + ".error.txt").unlink(missing_ok=True)
    claims = kb.inbox_dir / CLAIM_DIR
    claims.mkdir(parents=True, exist_ok=True)
    claimed = _unique(claims / name)
    shutil.move(failed, claimed)
    item = job.object if isinstance(job.object, IngestItem) else None
    if item is not None:  # its text was read: resume it where it stopped
        IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.PENDING, error="")
    return _queue_file(kb, claimed, item=item)
