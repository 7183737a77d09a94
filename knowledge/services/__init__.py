"""Knowledge workflows, a module each: documents as rows, every one made there (``documents``); their chunks, every one
cut and written there (``indexing``); an operator's edit of a chunk, made an edit of its document (``chunk_edits``),
kept in an upload's text while its file is unchanged (``upload_edits``); markdown written through to its file
(``write_through``); the folder sync (``sync``); uploads and text documents (``uploads``); the indexing job
(``processing``). Every name is importable from here."""

from knowledge.services.chunk_edits import chunk_edit, chunk_spliced
from knowledge.services.documents import DocumentRefused, document_delete, document_lock, document_store
from knowledge.services.indexing import Indexing, chunks_make, document_chunks_cut, document_index, index_prepare
from knowledge.services.processing import (
    document_process,
    document_release,
    document_retry,
    documents_orphaned_requeue,
    enqueue_document,
)
from knowledge.services.sync import enqueue_sync, knowledge_sync, knowledge_sync_all
from knowledge.services.upload_edits import upload_edit_mark, upload_text
from knowledge.services.uploads import (
    UPLOAD_TYPES,
    document_receive_text,
    document_text_put,
    document_upload,
    upload_check,
)
from knowledge.services.write_through import document_write, markdown_upsert

__all__ = [
    "UPLOAD_TYPES",
    "DocumentRefused",
    "Indexing",
    "chunk_edit",
    "chunk_spliced",
    "chunks_make",
    "document_chunks_cut",
    "document_delete",
    "document_index",
    "document_lock",
    "document_process",
    "document_receive_text",
    "document_release",
    "document_retry",
    "document_store",
    "document_text_put",
    "document_upload",
    "document_write",
    "documents_orphaned_requeue",
    "enqueue_document",
    "enqueue_sync",
    "index_prepare",
    "knowledge_sync",
    "knowledge_sync_all",
    "markdown_upsert",
    "upload_check",
    "upload_edit_mark",
    "upload_text",
]
