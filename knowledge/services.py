"""Knowledge workflows: indexing, write-through, the folder sync, uploads and their job.

Index a document, write through to its file, sync the folder into the index, receive uploads and process them in a
job.

The file is the truth for markdown documents; the index (Document + Chunk rows) follows it. A write embeds first (a
failing embedding backend changes nothing), then takes the document's advisory lock, writes the file atomically and
re-indexes in the same transaction; the sync takes the same lock per file, so the two never interleave. Should the
transaction fail after its file was renamed into place, the next sync sees the changed hash and re-indexes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from kbsite import jobs, locks
from kbsite.ai import defence, embeddings, splitting
from kbsite.ai.vectors import as_vectors
from kbsite.locks import Lock
from kbsite.models import EndUser, JobRun, KnowledgeBase
from kbsite.stats import stats_add
from kbsite.text import unstorable

from . import files
from .extractors import TEXT_TYPES, ExtractionFailed, extract_text
from .models import Chunk, Document
from .signals import document_indexed

logger = logging.getLogger(__name__)

UPLOAD_TYPES = sorted(TEXT_TYPES)


class DocumentRefused(ValueError):
    """Input that cannot become a document; the message says what to change."""


# --- Indexing ------------------------------------------------------------------------


def chunks_make(text: str, *, markdown: bool) -> list[tuple[int, str]]:
    """``(start offset, text)`` chunks of about KNOWLEDGE_CHUNK_CHARS, overlapping by KNOWLEDGE_CHUNK_OVERLAP."""
    return splitting.pieces_with_offsets(
        text, settings.KNOWLEDGE_CHUNK_CHARS, overlap=settings.KNOWLEDGE_CHUNK_OVERLAP, markdown=markdown
    )


@dataclass
class Indexing:
    """A document's chunks, their vectors and their flags, computed before anything is written."""

    pieces: list[tuple[int, str]]
    vectors: list
    flags: list[str]


def index_prepare(content: str, *, markdown: bool) -> Indexing:
    """Chunk, embed and screen ``content`` (raises EmbeddingError before anything changes)."""
    pieces = chunks_make(content, markdown=markdown)
    vectors = as_vectors(embeddings.embed([text for _, text in pieces])) if pieces else []
    flags = sorted({flag for s in defence.screen_many([text for _, text in pieces]) for flag in s.flags})
    return Indexing(pieces, vectors, flags)


def document_index(*, document: Document, prepared: Indexing | None = None) -> int:
    """Replace the document's chunks with fresh ones, embedded; marks it done. Returns the chunk count.

    Chunks are rewritten in place, position by position: whatever cites the chunk at a position (a memory drawn
    from it) still cites the chunk at that position afterwards. Runs in the caller's transaction (or its own):
    readers see the old chunks or the new, never a mix.
    """
    prepared = prepared or index_prepare(document.content, markdown=document.doc_type == Document.Type.MARKDOWN)
    pieces, vectors, flags = prepared.pieces, prepared.vectors, prepared.flags
    with transaction.atomic():
        old = {chunk.ordinal: chunk for chunk in Chunk.objects.filter(document=document).only("id", "ordinal")}
        kept, added = [], []
        for i, ((start, text), vector) in enumerate(zip(pieces, vectors, strict=True)):
            chunk = old.pop(i, None) or Chunk(document=document, kb_id=document.kb_id, ordinal=i)
            chunk.start_char, chunk.text, chunk.embedding = start, text, vector
            (kept if chunk.pk else added).append(chunk)
        Chunk.objects.filter(pk__in=[chunk.pk for chunk in old.values()]).delete()  # positions past the new end
        Chunk.objects.bulk_update(kept, ["start_char", "text", "embedding"], batch_size=256)
        Chunk.objects.bulk_create(added)
        document.status = Document.Status.DONE
        document.error = ""
        document.quarantine_reason = "; ".join(flags)[:300]
        document.save(update_fields=["status", "error", "quarantine_reason", "updated_at"])
    return len(pieces)


def _document_lock(kb_id: int, slug: str) -> None:
    """Hold document ``slug`` of KB ``kb_id`` until the transaction ends: a write and the sync take turns on it."""
    locks.hold(Lock.DOCUMENT, locks.text_key(f"{kb_id}/{slug}"))


# --- Markdown documents: write-through and sync -----------------------------------------


def document_write(
    *, kb: KnowledgeBase, slug: str, content: str, source: str = "api", max_bytes: int | None = None
) -> tuple[Document, bool]:
    """Create or replace the markdown document ``slug``: file and index together. Returns (document, created).

    Bots' writes are capped at KNOWLEDGE_MAX_MARKDOWN_BYTES (operators in the admin
    may pass a larger ``max_bytes``); the slug rules and the folder boundary are
    enforced by :mod:`knowledge.files`.
    """
    files.slug_check(slug)
    if not isinstance(content, str) or not content.strip():
        raise DocumentRefused("content is empty; send the full markdown of the document")
    if reason := unstorable(content):
        raise DocumentRefused(f"content {reason}")
    size, limit = len(content.encode()), max_bytes or settings.KNOWLEDGE_MAX_MARKDOWN_BYTES
    if size > limit:
        raise DocumentRefused(f"content is {size} bytes; a markdown document may have at most {limit}")
    # Embedding first: if the backend fails, neither the file nor the index has changed.
    prepared = index_prepare(content, markdown=True)
    with transaction.atomic():
        _document_lock(kb.pk, slug)
        clash = Document.objects.holding_slug(kb, slug).first()
        if clash is not None:
            raise DocumentRefused(f"{slug!r} is the slug of a {clash.doc_type} document; choose another slug")
        files.file_write(kb, slug, content)
        document, created = _markdown_upsert(kb, slug, content, source=source, prepared=prepared)
        stats_add(kb.pk, documents=1)
    return document, created


def _markdown_upsert(
    kb: KnowledgeBase, slug: str, content: str, *, source: str, prepared: Indexing | None = None
) -> tuple[Document, bool]:
    """Index the markdown ``content`` as document ``slug`` (caller holds the document lock)."""
    document, created = Document.objects.update_or_create(
        kb=kb,
        slug=slug,
        defaults={
            "title": files.title_of(content, slug),
            "doc_type": Document.Type.MARKDOWN,
            "namespace": "documents",
            "source": source,
            "content": content,
            "content_hash": files.content_hash(content),
            "size_bytes": len(content.encode()),
            "status": Document.Status.PROCESSING,
            "error": "",
            "deleted_at": None,
        },
    )
    document_index(document=document, prepared=prepared)
    return document, created


def document_delete(*, document: Document) -> None:
    """Remove a document from the index (kept as a deleted row) and its file or stored upload from disk."""
    with transaction.atomic():
        _document_lock(document.kb_id, document.slug)
        if document.doc_type == Document.Type.MARKDOWN:
            files.file_delete(document.kb, document.slug)
        elif document.metadata.get("file"):
            (document.kb.folder / document.metadata["file"]).unlink(missing_ok=True)
        Chunk.objects.filter(document=document).delete()
        document.deleted_at = timezone.now()
        document.save(update_fields=["deleted_at", "updated_at"])


def knowledge_sync(*, kb: KnowledgeBase) -> dict:
    """Bring the KB's knowledge/ folder into the index: new, changed (by hash) and deleted files. A file that cannot
    be indexed (its slug is an upload's, its text cannot be stored) is skipped with the reason."""
    counts = {"added": 0, "changed": 0, "deleted": 0, "unchanged": 0, "skipped": []}
    found, counts["skipped"] = files.files_list(kb)
    indexed = {
        d.slug: d
        for d in Document.objects.filter(kb=kb, doc_type=Document.Type.MARKDOWN, deleted_at__isnull=True).only(
            "id", "slug", "content_hash", "status", "kb_id", "doc_type"
        )
    }
    for slug, path in found.items():
        with transaction.atomic():
            _document_lock(kb.pk, slug)
            outcome = _file_sync(kb, slug, path, indexed.get(slug))
        if outcome in counts:
            counts[outcome] += 1
        elif outcome:
            counts["skipped"].append(f"{path.name}: {outcome}")
    for slug, document in indexed.items():
        if slug in found:
            continue
        with transaction.atomic():
            _document_lock(kb.pk, slug)
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
    _markdown_upsert(kb, slug, content, source=f"file:{path.name}")
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


# --- Uploads and text documents -------------------------------------------------------------


def _free_slug(kb: KnowledgeBase, wanted: str) -> str:
    base = (slugify(wanted)[:56].strip("-") or "document").ljust(2, "0")
    taken = set(Document.objects.filter(kb=kb, slug__startswith=base).values_list("slug", flat=True))
    taken |= set(files.files_list(kb)[0])
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def upload_check(*, name: str, size: int) -> str:
    """The upload's bare file name, if its type and size are acceptable; else DocumentRefused saying why."""
    name = Path(name or "").name  # a client's path is never used as one
    suffix = Path(name).suffix.lower()
    if suffix not in TEXT_TYPES:
        raise DocumentRefused(
            f"unsupported file type {suffix or '(none)'!r} for {name!r}; upload one of: {', '.join(UPLOAD_TYPES)}"
        )
    if size == 0:
        raise DocumentRefused(f"{name!r} is empty")
    if size > settings.MAX_UPLOAD_BYTES:
        raise DocumentRefused(f"{name!r} is {size} bytes; the limit is {settings.MAX_UPLOAD_BYTES} bytes")
    return name


def document_upload(
    *,
    kb: KnowledgeBase,
    name: str,
    data: bytes,
    namespace: str = "documents",
    title: str = "",
    end_user: EndUser | None = None,
) -> tuple[Document, JobRun]:
    """Store an uploaded file (an end user's own, or shared) and queue its extraction and indexing. Refuses
    unknown types and oversized files."""
    name = upload_check(name=name, size=len(data))
    suffix = Path(name).suffix.lower()
    with transaction.atomic():
        slug = _free_slug(kb, Path(name).stem)
        relative = f"uploads/{slug}{suffix}"
        document = Document.objects.create(
            kb=kb,
            slug=slug,
            title=title or Path(name).stem,
            doc_type=Document.Type.UPLOAD,
            end_user=end_user,
            namespace=namespace or "documents",
            source=name,
            size_bytes=len(data),
            metadata={"file": relative, "format": suffix.lstrip(".")},
        )
        path = kb.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        job = enqueue_document(document=document)
        stats_add(kb.pk, documents=1)
    return document, job


def document_receive_text(
    *,
    kb: KnowledgeBase,
    content: str,
    title: str = "",
    slug: str = "",
    namespace: str = "documents",
    end_user: EndUser | None = None,
    source: str = "api",
) -> tuple[Document, JobRun]:
    """Store a text document sent as JSON (an end user's own, or shared) and queue its indexing."""
    if not content.strip():
        raise DocumentRefused("content is empty")
    if reason := unstorable(content):
        raise DocumentRefused(f"content {reason}")
    with transaction.atomic():
        if slug:
            files.slug_check(slug)
            if Document.objects.filter(kb=kb, slug=slug).exists() or files.document_path(kb, slug).exists():
                raise DocumentRefused(f"a document with slug {slug!r} already exists in this knowledge base")
        else:
            slug = _free_slug(kb, title or content.strip().splitlines()[0][:60])
        document = Document.objects.create(
            kb=kb,
            slug=slug,
            title=title or files.title_of(content, slug),
            doc_type=Document.Type.TEXT,
            end_user=end_user,
            namespace=namespace or "documents",
            source=source,
            content=content,
            content_hash=files.content_hash(content),
            size_bytes=len(content.encode()),
        )
        job = enqueue_document(document=document)
        stats_add(kb.pk, documents=1)
    return document, job


def document_text_put(
    *, kb: KnowledgeBase, slug: str, content: str, end_user: EndUser, source: str = "tool"
) -> tuple[Document, bool]:
    """Create or replace the end user's own text document ``slug`` (a bot writing knowledge while serving that
    user): it lives in the database, not in the shared knowledge/ folder, and is indexed by a job. A slug held by
    a shared document or another user's is refused. Returns (document, created)."""
    files.slug_check(slug)
    with transaction.atomic():
        _document_lock(kb.pk, slug)
        document = Document.objects.present().filter(kb=kb, slug=slug).first()
        if document is None:
            document, _ = document_receive_text(
                kb=kb, content=content, slug=slug, end_user=end_user, source=source, title=files.title_of(content, slug)
            )
            return document, True
        if document.end_user_id != end_user.pk or document.doc_type != Document.Type.TEXT:
            raise DocumentRefused(f"the slug {slug!r} is taken in this knowledge base; choose another slug")
        if reason := unstorable(content):
            raise DocumentRefused(f"content {reason}")
        document.content, document.title = content, files.title_of(content, slug)
        document.content_hash, document.size_bytes = files.content_hash(content), len(content.encode())
        document.save(update_fields=["content", "title", "content_hash", "size_bytes", "updated_at"])
        enqueue_document(document=document)
    return document, False


def enqueue_document(*, document: Document) -> JobRun:
    """Queue (re-)indexing of a document in the background."""
    with transaction.atomic():
        Document.objects.filter(pk=document.pk).update(status=Document.Status.PENDING, error="")
        return jobs.job_enqueue(kind=JobRun.Kind.DOCUMENT, kb=document.kb, obj=document, target=document.slug)


def document_release(job: JobRun, reason: str) -> None:
    """Show the document of a job that ended unexpectedly as failed with the reason (re-index to retry)."""
    Document.objects.filter(pk=job.object_id, status__in=[Document.Status.PENDING, Document.Status.PROCESSING]).update(
        status=Document.Status.FAILED, error=reason
    )


def documents_orphaned_requeue() -> int:
    """Queue again the documents waiting or processing with no indexing job waiting or running for them (a stopped
    run that did not say so; part of the jobs' healing). Returns how many."""
    live = JobRun.objects.filter(
        kind=JobRun.Kind.DOCUMENT, status__in=[JobRun.Status.QUEUED, JobRun.Status.RUNNING]
    ).values("object_id")
    orphans = (
        Document.objects.present()
        .filter(
            status__in=[Document.Status.PENDING, Document.Status.PROCESSING],
            updated_at__lt=timezone.now() - timedelta(seconds=60),
        )
        .exclude(pk__in=live)
    )
    count = 0
    for document in orphans.select_related("kb__bot"):
        enqueue_document(document=document)
        count += 1
    return count


def document_retry(job: JobRun) -> JobRun | None:
    """Index a document whose indexing failed again, unless it has been deleted since."""
    document = job.object
    if document is None or document.deleted_at is not None:
        return None
    return enqueue_document(document=document)


def document_process(*, job: JobRun) -> JobRun:
    """Extract (uploads), chunk, embed and index one document; a failure is recorded on both rows."""
    document = Document.objects.select_related("kb__bot").filter(pk=job.object_id, deleted_at__isnull=True).first()
    if document is None:
        job.finish(status=JobRun.Status.SKIPPED, error="the document was deleted")
        return job
    job.start()
    Document.objects.filter(pk=document.pk).update(status=Document.Status.PROCESSING)
    try:
        if document.doc_type == Document.Type.UPLOAD and "file" in document.metadata:  # an import has no file
            path = document.kb.folder / document.metadata["file"]
            if not path.is_file():
                raise ExtractionFailed(f"the uploaded file {document.metadata['file']} is missing")
            document.content = extract_text(document.source, path.read_bytes())
            document.content_hash = files.content_hash(document.content)
            document.save(update_fields=["content", "content_hash", "updated_at"])
        elif document.doc_type == Document.Type.MARKDOWN:
            content = files.file_read(document.kb, document.slug)
            if content is not None:
                document.content, document.content_hash = content, files.content_hash(content)
                document.save(update_fields=["content", "content_hash", "updated_at"])
        job.items_read = document_index(document=document)
    except (ExtractionFailed, embeddings.EmbeddingError) as exc:
        Document.objects.filter(pk=document.pk).update(status=Document.Status.FAILED, error=str(exc))
        job.fail(str(exc), retryable=not isinstance(exc, ExtractionFailed))
        return job
    job.detail = {"document": document.slug, "chunks": job.items_read}
    job.finish(status=JobRun.Status.SUCCEEDED)
    document_indexed.send(sender=Document, document=document)
    return job
