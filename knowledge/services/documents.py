"""Documents as rows: every one is made here (document_store), with what refuses one (DocumentRefused), the
per-document lock, and deleting one."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from kbsite import locks
from kbsite.locks import Lock
from kbsite.models import KnowledgeBase
from knowledge import files
from knowledge.models import Chunk, Document


class DocumentRefused(ValueError):
    """Input that cannot become a document; the message says what to change."""


def document_lock(kb_id: int, slug: str) -> None:
    """Hold document ``slug`` of KB ``kb_id`` until the transaction ends: a write and the sync take turns on it."""
    locks.hold(Lock.DOCUMENT, locks.text_key(f"{kb_id}/{slug}"))


def document_store(*, kb: KnowledgeBase, slug: str, replace: bool = False, **fields) -> tuple[Document, bool]:
    """Document ``slug`` of ``kb`` with ``fields``: a new row, or, with ``replace``, the row that holds the slug
    rewritten (a markdown document written again, a deleted document's row reused). Every document row is made
    here, and its chunks by :mod:`knowledge.services.indexing`. Returns (document, created)."""
    if replace:
        return Document.objects.update_or_create(kb=kb, slug=slug, defaults=fields)
    return Document.objects.create(kb=kb, slug=slug, **fields), True


def document_delete(*, document: Document) -> None:
    """Remove a document from the index (kept as a deleted row) and its file or stored upload from disk."""
    with transaction.atomic():
        document_lock(document.kb_id, document.slug)
        if document.doc_type == Document.Type.MARKDOWN:
            files.file_delete(document.kb, document.slug)
        elif document.metadata.get("file"):
            (document.kb.folder / document.metadata["file"]).unlink(missing_ok=True)
        Chunk.objects.filter(document=document).delete()
        document.deleted_at = timezone.now()
        document.save(update_fields=["deleted_at", "updated_at"])
