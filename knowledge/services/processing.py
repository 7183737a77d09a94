"""A document's indexing job: queued, run (extract, chunk, embed), released when it ends unexpectedly, retried, and
queued again for documents a stopped run left waiting."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from kbsite import jobs
from kbsite.ai import embeddings
from kbsite.models import JobRun
from knowledge import files
from knowledge.extractors import ExtractionFailed
from knowledge.models import Document
from knowledge.services.documents import document_lock
from knowledge.services.indexing import document_index, index_prepare
from knowledge.services.upload_edits import upload_text
from knowledge.signals import document_indexed


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
        edits = ""
        if document.doc_type == Document.Type.UPLOAD and "file" in document.metadata:  # an import has no file
            job.items_read, edits = _upload_index(document)
        else:
            if document.doc_type == Document.Type.MARKDOWN:
                content = files.file_read(document.kb, document.slug)
                if content is not None:
                    document.content, document.content_hash = content, files.content_hash(content)
                    document.save(update_fields=["content", "content_hash", "updated_at"])
            job.items_read = document_index(document=document)
    except (ExtractionFailed, embeddings.EmbeddingError) as exc:
        Document.objects.filter(pk=document.pk).update(status=Document.Status.FAILED, error=str(exc))
        job.fail(str(exc), retryable=not isinstance(exc, ExtractionFailed))
        return job
    job.detail = {"document": document.slug, "chunks": job.items_read, **({"operator_edits": edits} if edits else {})}
    job.finish(status=JobRun.Status.SUCCEEDED)
    document_indexed.send(sender=Document, document=document)
    return job


def _upload_file(document: Document) -> bytes:
    path = document.kb.folder / document.metadata["file"]
    if not path.is_file():
        raise ExtractionFailed(f"the uploaded file {document.metadata['file']} is missing")
    return path.read_bytes()


def _upload_index(document: Document) -> tuple[int, str]:
    """Index an upload's text of record: its file's text, extracted again, or, while the file is the one an operator
    edited the text of, the edited text (see upload_edits). Returns the chunk count and what became of the edits.

    Extracting and embedding happen before the document's lock is taken; should an operator's chunk edit land
    meanwhile (the row changed), the choice is made again under the lock from the row as it is then, so an edit is
    never overwritten by a text extracted before it."""
    seen = (document.content_hash, document.metadata)
    content, metadata, edits = upload_text(document=document, data=_upload_file(document))
    prepared = index_prepare(content, markdown=False)
    with transaction.atomic():
        document_lock(document.kb_id, document.slug)
        document.refresh_from_db(fields=["content", "content_hash", "metadata"])
        if (document.content_hash, document.metadata) != seen:
            content, metadata, edits = upload_text(document=document, data=_upload_file(document))
            prepared = None  # document_index prepares the text chosen now
        document.content, document.content_hash, document.metadata = content, files.content_hash(content), metadata
        if metadata.get("title_from") in ("file name", "heading") and (heading := files.heading_of(content)):
            document.title, metadata["title_from"] = heading, "heading"
        document.save(update_fields=["content", "content_hash", "metadata", "title", "updated_at"])
        return document_index(document=document, prepared=prepared), edits
