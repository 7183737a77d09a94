"""What the knowledge app tells a bot's webhooks: ``document.indexed``, once a document's chunks are searchable."""

from __future__ import annotations

from kbsite.webhooks.events import EventType
from kbsite.webhooks.services import event_emit, listening


def document_indexed(document, *, chunks: int) -> None:
    """``document.indexed`` for ``document``, now cut into ``chunks`` searchable chunks (by its indexing job, a
    write-through, a chunk edited, an archive), when its bot listens."""
    if not listening(bot_ids={document.kb.bot_id}, type=EventType.DOCUMENT_INDEXED):
        return
    data = {
        "kb": document.kb.name,
        "document": {
            "id": document.pk,
            "slug": document.slug,
            "title": document.title,
            "type": document.doc_type,
            "source": document.source,
            "user_id": document.end_user.external_id if document.end_user_id else None,
            "chunks": chunks,
        },
    }
    event_emit(bot_id=document.kb.bot_id, type=EventType.DOCUMENT_INDEXED, data=data)
