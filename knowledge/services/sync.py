"""The folder sync: each KB's knowledge/ folder brought into the index (new, changed and deleted files), and its job."""

from __future__ import annotations

import logging
from pathlib import Path

from django.db import transaction

from kbsite import jobs, locks
from kbsite.locks import Lock
from kbsite.models import JobRun, KnowledgeBase
from kbsite.text import unstorable
from knowledge import files
from knowledge.models import Document
from knowledge.services.documents import document_delete, document_lock
from knowledge.services.write_through import markdown_upsert

logger = logging.getLogger(__name__)


def knowledge_sync(*, kb: KnowledgeBase) -> dict:
    """Bring the KB's knowledge/ folder into the index: new, changed (by hash) and deleted files. A file that cannot
    be indexed (its slug is an upload's, its text cannot be stored) is skipped with the reason; so is the whole KB
    when its folder is missing (its documents are kept)."""
    counts = {"added": 0, "changed": 0, "deleted": 0, "unchanged": 0, "skipped": []}
    if not kb.knowledge_dir.is_dir():
        # A folder that is not there (a data volume not mounted, a folder moved by hand) is not a folder emptied
        # on purpose: deleting every document for it would lose them all.
        counts["skipped"].append(f"its folder {kb.knowledge_dir} is missing: nothing indexed or deleted")
        return counts
    found, counts["skipped"] = files.files_list(kb)
    indexed = {
        d.slug: d
        for d in Document.objects.filter(kb=kb, doc_type=Document.Type.MARKDOWN, deleted_at__isnull=True).only(
            "id", "slug", "content_hash", "status", "kb_id", "doc_type"
        )
    }
    for slug, path in found.items():
        with transaction.atomic():
            document_lock(kb.pk, slug)
            outcome = _file_sync(kb, slug, path, indexed.get(slug))
        if outcome in counts:
            counts[outcome] += 1
        elif outcome:
            counts["skipped"].append(f"{path.name}: {outcome}")
    for slug, document in indexed.items():
        if slug in found:
            continue
        with transaction.atomic():
            document_lock(kb.pk, slug)
            if files.document_path(kb, slug).exists():
                continue  # written meanwhile
            document_delete(document=document)  # the file is gone already; the index follows
            counts["deleted"] += 1
    return counts


def _file_sync(kb: KnowledgeBase, slug: str, path: Path, known: Document | None) -> str | None:
    """Index one file of the folder if it is new or changed (caller holds its document lock). Returns "added",
    "changed" or "unchanged", why it was skipped, or None when it is gone."""
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None  # removed meanwhile: the next sync sees it gone
    if known and known.content_hash == files.content_hash(content) and known.status == Document.Status.DONE:
        return "unchanged"
    if Document.objects.holding_slug(kb, slug).exists():
        return "its slug is taken by an uploaded or archived document"
    if reason := unstorable(content):
        return f"its text {reason}"
    markdown_upsert(kb, slug, content, source=f"file:{path.name}")
    return "changed" if known else "added"


def knowledge_sync_all(*, job: JobRun) -> JobRun:
    """Sync every active KB's folder; the run record keeps the counts per KB. A KB whose sync fails (its embedding
    backend is down, a bug) is recorded with its error and the others are still synced; the run then fails."""
    job.start()
    detail: dict = {}
    failed: list[str] = []
    for kb in KnowledgeBase.objects.filter(is_active=True, bot__is_active=True):
        try:
            with transaction.atomic():
                if not locks.try_hold(Lock.SYNC, kb.pk):
                    continue  # another sync of this KB is running
                counts = knowledge_sync(kb=kb)
        except Exception as exc:
            logger.exception("knowledge sync of %s failed", kb)
            detail[str(kb)] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            failed.append(str(kb))
            continue
        if any(counts[k] for k in ("added", "changed", "deleted", "skipped")):
            detail[str(kb)] = counts
        job.items_read += counts["added"] + counts["changed"] + counts["unchanged"]
    job.detail = detail
    if failed:
        job.finish(status=JobRun.Status.FAILED, error=f"the sync of {', '.join(failed)} failed (see detail)")
    else:
        job.finish(status=JobRun.Status.SUCCEEDED)
    return job


def enqueue_sync() -> JobRun:
    """Queue a sync of every folder, unless one is already waiting."""
    return jobs.job_enqueue(kind=JobRun.Kind.SYNC, target="knowledge folders", unique=True)
