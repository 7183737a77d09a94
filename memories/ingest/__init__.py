"""Ingestion: chat turns, text, documents and inbox files become atomic memories.

Input is stored first (``receive``: turns, ingest items; ``inbox``: files) and processed by jobs: the
extraction of posted turns (``turns``, sharing a KB's backlog through ``claims``) and of text and document
items (``items``), each extracting facts (``facts``) and applying them in one transaction (``apply``). A job
that fails leaves its input where it was (the session cursor, the pending item, the file in ``failed/``) and
is marked failed, so an operator can retry it.
"""

from memories.ingest.apply import CursorGuard, CursorMoved, facts_apply
from memories.ingest.inbox import file_retry, inbox_file_ingest, inbox_scan
from memories.ingest.items import item_ingest, item_retry
from memories.ingest.receive import (
    SessionOfAnotherUser,
    document_facts_queue,
    enqueue_extract,
    enqueue_item_ingest,
    messages_receive,
    text_receive,
)
from memories.ingest.turns import extract_pending

__all__ = [
    "CursorGuard",
    "CursorMoved",
    "SessionOfAnotherUser",
    "document_facts_queue",
    "enqueue_extract",
    "enqueue_item_ingest",
    "extract_pending",
    "facts_apply",
    "file_retry",
    "inbox_file_ingest",
    "inbox_scan",
    "item_ingest",
    "item_retry",
    "messages_receive",
    "text_receive",
]
