"""An import's documents, matched by slug: a new one is stored with its chunks cut as indexing will cut them
(embedded by its own job after the import), a shared markdown document with its file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils import timezone

from knowledge import files
from knowledge.models import Document
from knowledge.services import document_chunks_cut, document_store
from memories.models import IngestItem
from memories.rights.import_checks import ImportRefused, Line

if TYPE_CHECKING:
    from memories.rights.import_state import ImportState


def documents_import(state: ImportState) -> None:
    kb = state.kb
    lines = state.by_type["document"]
    held = {d.slug: d for d in Document.objects.filter(kb=kb, slug__in=[line.data["slug"] for line in lines])}
    for line in lines:
        data = line.data
        document = held.get(data["slug"])
        digest = files.content_hash(data["content"])
        if document is not None and document.deleted_at is None:
            if document.content != data["content"] or document.end_user_id != state.owner(data):
                raise ImportRefused(
                    line.number, f"document {data['slug']!r} of this KB holds other content or belongs to another owner"
                )
            state.documents[document.slug] = document
            state.counts["unchanged"] += 1
            continue
        state.documents[data["slug"]] = _document_create(state, line, document, digest)
        state.counts["documents"] += 1


def _document_create(state: ImportState, line: Line, deleted: Document | None, digest: str) -> Document:
    """The document of ``line`` (reusing the row of a deleted one of that slug), with its chunks cut as indexing
    will cut them, unembedded until its job runs; a shared markdown document gets its file."""
    kb, data = state.kb, line.data
    markdown = data["doc_type"] == Document.Type.MARKDOWN
    if markdown and data["user_id"]:
        raise ImportRefused(line.number, "an end user's document cannot be a markdown file; give it doc_type 'text'")
    document, _ = document_store(
        kb=kb,
        slug=data["slug"],
        replace=deleted is not None,
        title=data["title"],
        doc_type=data["doc_type"],
        namespace=data["namespace"],
        source=data["source"],
        content=data["content"],
        metadata=data["metadata"],
        quarantine_reason=data["quarantine_reason"],
        end_user=state.users[data["user_id"]],
        content_hash=digest,
        size_bytes=len(data["content"].encode()),
        status=Document.Status.PENDING,
        error="",
        deleted_at=None,
    )
    if data["created_at"]:
        Document.objects.filter(pk=document.pk).update(created_at=data["created_at"])
    document_chunks_cut(document=document)
    if markdown:
        on_disk = files.file_read(kb, document.slug)
        if on_disk is not None and files.content_hash(on_disk) != digest:
            raise ImportRefused(line.number, f"knowledge/{document.slug}.md of this KB holds other content")
        if on_disk is None:
            state.files.append(files.file_write(kb, document.slug, data["content"]))
    else:  # its facts came with the file: indexing must not mine them again
        IngestItem.objects.create(
            kb=kb,
            end_user=document.end_user,
            kind=IngestItem.Kind.DOCUMENT,
            document=document,
            source=f"import:{document.slug}",
            status=IngestItem.Status.DONE,
            processed_at=timezone.now(),
        )
    state.new_documents.append(document)
    return document
