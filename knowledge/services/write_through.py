"""Markdown documents written through: the file and the index change together (document_write).

The file is the truth for markdown documents; the index (Document + Chunk rows) follows it. A write embeds first (a
failing embedding backend changes nothing), then takes the document's advisory lock, writes the file atomically and
re-indexes in the same transaction; the sync takes the same lock per file, so the two never interleave. Should the
transaction fail after its file was renamed into place, the next sync sees the changed hash and re-indexes it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from kbsite.models import KnowledgeBase
from kbsite.stats import stats_add
from kbsite.text import unstorable
from knowledge import files
from knowledge.models import Document
from knowledge.services.documents import DocumentRefused, document_lock, document_store
from knowledge.services.indexing import Indexing, document_index, index_prepare


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
        document_lock(kb.pk, slug)
        clash = Document.objects.holding_slug(kb, slug).first()
        if clash is not None:
            raise DocumentRefused(f"{slug!r} is the slug of a {clash.doc_type} document; choose another slug")
        files.file_write(kb, slug, content)
        document, created = markdown_upsert(kb, slug, content, source=source, prepared=prepared)
        stats_add(kb.pk, documents=1)
    return document, created


def markdown_upsert(
    kb: KnowledgeBase, slug: str, content: str, *, source: str, prepared: Indexing | None = None
) -> tuple[Document, bool]:
    """Index the markdown ``content`` as document ``slug`` (caller holds the document lock)."""
    document, created = document_store(
        kb=kb,
        slug=slug,
        replace=True,
        title=files.title_of(content, slug),
        doc_type=Document.Type.MARKDOWN,
        namespace="documents",
        source=source,
        content=content,
        content_hash=files.content_hash(content),
        size_bytes=len(content.encode()),
        status=Document.Status.PROCESSING,
        error="",
        deleted_at=None,
    )
    document_index(document=document, prepared=prepared)
    return document, created
