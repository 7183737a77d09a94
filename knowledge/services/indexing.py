"""A document's chunks, made here only: cut (chunks_make), embedded and screened (index_prepare), and written
(document_index; document_chunks_cut, unembedded until the document's indexing job runs)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from kbsite.ai import defence, embeddings, splitting
from kbsite.ai.vectors import as_vectors
from knowledge import webhooks
from knowledge.models import Chunk, Document

LANGUAGE_CHARS = 2000  # what of a document tells its language


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
    multilingual: list  # the second vectors (MULTILINGUAL_VECTORS), or None each


def index_prepare(content: str, *, markdown: bool) -> Indexing:
    """Chunk, embed and screen ``content`` (raises EmbeddingError before anything changes)."""
    pieces = chunks_make(content, markdown=markdown)
    texts = [text for _, text in pieces]
    vectors = as_vectors(embeddings.embed(texts)) if pieces else []
    multilingual = embeddings.embed_multilingual(texts) if pieces else []
    multilingual = as_vectors(multilingual) if multilingual is not None else [None] * len(pieces)
    flags = sorted({flag for s in defence.screen_many(texts) for flag in s.flags})
    return Indexing(pieces, vectors, flags, multilingual)


def document_index(*, document: Document, prepared: Indexing | None = None) -> int:
    """Replace the document's chunks with fresh ones, embedded; marks it done. Returns the chunk count.

    Chunks are rewritten in place, position by position: whatever cites the chunk at a position (a memory drawn
    from it) still cites the chunk at that position afterwards. Runs in the caller's transaction (or its own):
    readers see the old chunks or the new, never a mix.
    """
    prepared = prepared or index_prepare(document.content, markdown=_is_markdown(document))
    with transaction.atomic():
        _chunks_write(document, prepared.pieces, prepared.vectors, prepared.multilingual)
        document.status = Document.Status.DONE
        document.error = ""
        document.quarantine_reason = "; ".join(prepared.flags)[:300]
        document.save(update_fields=["status", "error", "quarantine_reason", "updated_at"])
        webhooks.document_indexed(document, chunks=len(prepared.pieces))
    return len(prepared.pieces)


def document_chunks_cut(*, document: Document) -> int:
    """Cut the document's content into the chunks its indexing will embed, stored unembedded until its indexing job
    runs (an imported document: the memories of the file cite its chunks before then). Returns the chunk count."""
    pieces = chunks_make(document.content, markdown=_is_markdown(document))
    with transaction.atomic():
        _chunks_write(document, pieces, [None] * len(pieces), [None] * len(pieces))
    return len(pieces)


def _is_markdown(document: Document) -> bool:
    return document.doc_type == Document.Type.MARKDOWN


def _chunks_write(document: Document, pieces: list[tuple[int, str]], vectors: list, multilingual: list) -> None:
    """Make ``pieces`` (with ``vectors`` and the ``multilingual`` second ones) the document's chunks, position by
    position: the one place chunk rows are written (in the caller's transaction). They are in the document's
    language, told from its opening."""
    (language,) = document.kb.languages_of([document.content[:LANGUAGE_CHARS]])
    if document.language != language:
        document.language = language
        Document.objects.filter(pk=document.pk).update(language=language)
    document.kb.languages_note([language])
    old = {chunk.ordinal: chunk for chunk in Chunk.objects.filter(document=document).only("id", "ordinal")}
    kept, added = [], []
    for i, ((start, text), vector, second) in enumerate(zip(pieces, vectors, multilingual, strict=True)):
        chunk = old.pop(i, None) or Chunk(document=document, kb_id=document.kb_id, ordinal=i)
        chunk.start_char, chunk.text, chunk.embedding, chunk.language = start, text, vector, language
        chunk.multilingual_embedding = second
        (kept if chunk.pk else added).append(chunk)
    Chunk.objects.filter(pk__in=[chunk.pk for chunk in old.values()]).delete()  # positions past the new end
    fields = ["start_char", "text", "embedding", "multilingual_embedding", "language"]
    Chunk.objects.bulk_update(kept, fields, batch_size=256)
    Chunk.objects.bulk_create(added)
