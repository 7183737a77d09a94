"""An operator's edit of one chunk, made an edit of its document at the chunk's place (chunk_edit): screened,
embedded and full-text indexed by the same path as every write of that document, never stored as it came.

A chunk is a piece of its document's text, cut at ``start_char``; its text put back there gives the document's new
text, which is indexed again whole (every chunk cut, embedded and screened: a secret or a prompt injection in any of
them quarantines the document, with the reason, and a quarantined document never reaches a bot). A markdown
document's file is written through, as the document editor does; another document's stored text is rewritten. An
upload's file is not changed: its edited text becomes its text of record, which re-indexing keeps while the file is
unchanged and a changed file replaces, saying so (``upload_edits``).
"""

from __future__ import annotations

from django.db import transaction

from kbsite.text import unstorable
from knowledge import files
from knowledge.models import Chunk, Document
from knowledge.services.documents import DocumentRefused, document_lock
from knowledge.services.indexing import document_index, index_prepare
from knowledge.services.upload_edits import upload_edit_mark
from knowledge.services.write_through import document_write


def chunk_spliced(*, chunk: Chunk, text: str) -> str:
    """The chunk's document's text with ``text`` in place of the chunk's. Raises DocumentRefused, saying what to do,
    when the text is empty or cannot be stored, or when the chunk is no longer the text at its place (its document
    changed since it was cut)."""
    if not text.strip():
        raise DocumentRefused("the text is empty; edit the document to remove a passage")
    if reason := unstorable(text):
        raise DocumentRefused(f"the text {reason}")
    content, start = chunk.document.content, chunk.start_char
    end = start + len(chunk.text)
    if content[start:end] != chunk.text:
        raise DocumentRefused(
            f"chunk #{chunk.ordinal} is not the text of {chunk.document.slug!r} at its place any more; "
            "re-index the document, then edit the chunk again"
        )
    return content[:start] + text + content[end:]


def chunk_edit(*, chunk: Chunk, text: str, max_bytes: int | None = None) -> Document:
    """Put ``text`` in place of the chunk's in its document, and index the document again (see the module).
    Returns the document: its ``quarantine_reason`` says whether what it now holds may reach a bot.

    Raises DocumentRefused (see :func:`chunk_spliced`; a markdown document over ``max_bytes``) and EmbeddingError
    before anything changes. As in the document editor, the last write wins."""
    document = chunk.document
    content = chunk_spliced(chunk=chunk, text=text)
    if document.doc_type == Document.Type.MARKDOWN:
        written, _ = document_write(
            kb=document.kb, slug=document.slug, content=content, source="admin", max_bytes=max_bytes
        )
        return written
    prepared = index_prepare(content, markdown=False)  # embedding first: a failing backend changes nothing
    with transaction.atomic():
        document_lock(document.kb_id, document.slug)
        document.content, document.content_hash = content, files.content_hash(content)
        fields = ["content", "content_hash", "updated_at"]
        if document.doc_type == Document.Type.UPLOAD and "file" in document.metadata:
            # The edited text is the text of record while the file is unchanged; an upload's size is its file's.
            metadata = Document.objects.values_list("metadata", flat=True).get(pk=document.pk)  # as of the lock
            document.metadata = upload_edit_mark(metadata=metadata, path=document.kb.folder / metadata["file"])
            fields.append("metadata")
        elif document.doc_type != Document.Type.UPLOAD:
            document.size_bytes = len(content.encode())
            fields.append("size_bytes")
        document.save(update_fields=fields)
        document_index(document=document, prepared=prepared)
    return document
