"""Inbox folders: files dropped into a KB's inbox/ are claimed, ingested and moved on.

A file dropped into ``<data dir>/bot_<bot id>/kb_<kb id>/inbox/`` is claimed once it has settled, turned into text
and ingested, then moved to ``processed/``, or to ``failed/`` with ``<name>.error.txt`` saying why. A file dropped into
``inbox/users/<user_id>/`` is that end user's: its facts are theirs, and it keeps its ``users/<user_id>/`` place in
``processed/`` and ``failed/`` (where their erasure finds it).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from kbsite import jobs
from kbsite.models import EndUser, JobRun, KnowledgeBase, user_id_validator
from kbsite.stats import stats_add
from knowledge.extractors import ExtractionFailed, extract_text
from memories.ingest.facts import job_fail
from memories.ingest.items import item_ingest
from memories.models import IngestItem

CLAIM_DIR = ".processing"
USERS_DIR = "users"


def user_folders(kb: KnowledgeBase, user_id: str) -> list[Path]:
    """Where an end user's inbox files can be: waiting, claimed, processed or failed (none for the ids "." and "..",
    which are valid user ids but name no folder of their own)."""
    if set(user_id) == {"."} and len(user_id) <= 2:
        return []
    place = Path(USERS_DIR) / user_id
    return [kb.inbox_dir / place, kb.inbox_dir / CLAIM_DIR / place, kb.processed_dir / place, kb.failed_dir / place]


def _place(path: Path, root: Path) -> Path:
    """Where a file sits below ``root`` (its inbox, claims, processed or failed folder): ``name`` for a shared file,
    ``users/<user_id>/name`` for an end user's."""
    return path.relative_to(root)


def _owner(place: Path) -> str | None:
    """The end user a file's place names (None: shared)."""
    return place.parts[1] if len(place.parts) == 3 and place.parts[0] == USERS_DIR else None


def _waiting(inbox: Path) -> list[Path]:
    """The inbox's files, shared ones and those in ``users/<user_id>/`` folders, oldest name first."""
    found = [p for p in inbox.iterdir() if p.is_file()]
    users = inbox / USERS_DIR
    if users.is_dir():
        found += [p for folder in users.iterdir() if folder.is_dir() for p in folder.iterdir() if p.is_file()]
    return sorted(p for p in found if not p.name.startswith("."))


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
        for path in _waiting(inbox):
            if not _stable(path):
                continue
            claimed = _unique(inbox / CLAIM_DIR / _place(path, inbox))
            claimed.parent.mkdir(parents=True, exist_ok=True)
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
    working = [JobRun.Status.QUEUED, JobRun.Status.RUNNING, JobRun.Status.WAITING]  # waiting: for the LLM budget
    live = set(JobRun.objects.filter(kind=JobRun.Kind.INGEST_FILE, status__in=working).values_list("kb_id", "target"))
    returned = 0
    for kb in KnowledgeBase.objects.filter(is_active=True, bot__is_active=True):
        claims = kb.inbox_dir / CLAIM_DIR
        if not claims.is_dir():
            continue
        for path in _waiting(claims):
            try:
                young = time.time() - path.stat().st_mtime < ORPHAN_GRACE_SECONDS
            except FileNotFoundError:
                continue
            if not young and (kb.pk, str(path.relative_to(kb.folder))) not in live:
                back = _unique(kb.inbox_dir / _place(path, claims))
                back.parent.mkdir(parents=True, exist_ok=True)
                os.rename(path, back)
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
        processed = _unique(kb.processed_dir / _place(claimed, kb.inbox_dir / CLAIM_DIR))
        processed.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(claimed, processed)
    elif job.status != JobRun.Status.WAITING:  # a file waiting for the LLM budget stays claimed, its item part-done
        _park_failed(job, claimed, job.error)
        job.save(update_fields=["detail"])
    return job


def _file_item(kb: KnowledgeBase, claimed: Path) -> IngestItem:
    """The ingest item of a claimed file: its text, if the file is within MAX_UPLOAD_BYTES and its text readable,
    owned by the end user whose folder it was dropped in."""
    size = claimed.stat().st_size
    if size > settings.MAX_UPLOAD_BYTES:
        raise ExtractionFailed(
            f"the file is {size:,} bytes; the limit is {settings.MAX_UPLOAD_BYTES:,} (MAX_UPLOAD_BYTES)"
        )
    user_id = _owner(_place(claimed, kb.inbox_dir / CLAIM_DIR))
    if user_id is not None:
        try:
            user_id_validator(user_id)
        except ValidationError as exc:
            raise ExtractionFailed(f"the folder users/{user_id}/ does not name a user_id: {exc.messages[0]}") from exc
    text = extract_text(claimed.name, claimed.read_bytes())
    stats_add(kb.pk, texts=1)
    return IngestItem.objects.create(
        kb=kb,
        end_user=EndUser.objects.seen(kb.bot, user_id),
        kind=IngestItem.Kind.FILE,
        file_name=claimed.name,
        source=f"inbox:{claimed.name}",
        text=text,
    )


def file_release(job: JobRun, reason: str) -> None:
    """Park the claimed file of a job that ended unexpectedly in failed/ with the reason (retried from there), and
    show its item failed."""
    claimed = job.kb.folder / job.target
    if claimed.is_file() and claimed.is_relative_to(job.kb.inbox_dir / CLAIM_DIR):
        _park_failed(job, claimed, reason)
        JobRun.objects.filter(pk=job.pk).update(detail=job.detail)
    IngestItem.objects.filter(pk=job.object_id, status=IngestItem.Status.PENDING).update(
        status=IngestItem.Status.FAILED, error=reason
    )


def _park_failed(job: JobRun, claimed: Path, reason: str) -> None:
    """Move the file to failed/ (its user's folder there, for an end user's) with ``<name>.error.txt`` beside it
    saying why."""
    target = _unique(job.kb.failed_dir / _place(claimed, job.kb.inbox_dir / CLAIM_DIR))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(claimed, target)
    target.with_name(target.name + ".error.txt").write_text(
        f"{timezone.now().isoformat()} could not ingest {claimed.name}:\n{reason}\n"
    )
    job.detail = {**job.detail, "failed_file": str(_place(target, job.kb.failed_dir))}


def file_retry(job: JobRun) -> JobRun | None:
    """Move the failed file back among the claimed inbox files and queue it again; a file that waited for the LLM
    budget is still claimed, and its item resumes."""
    kb = job.kb
    if job.status == JobRun.Status.WAITING and (kb.folder / job.target).is_file():
        return _queue_file(kb, kb.folder / job.target, item=job.object)
    place = job.detail.get("failed_file") or Path(job.target).name
    failed = kb.failed_dir / place
    if not failed.is_file():
        return None
    failed.with_name(failed.name + ".error.txt").unlink(missing_ok=True)
    claimed = _unique(kb.inbox_dir / CLAIM_DIR / place)
    claimed.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(failed, claimed)
    item = job.object if isinstance(job.object, IngestItem) else None
    if item is not None:  # its text was read: resume it where it stopped
        IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.PENDING, error="")
    return _queue_file(kb, claimed, item=item)
