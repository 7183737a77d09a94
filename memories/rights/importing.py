"""Import of the JSON Lines export format into a KB: all or nothing, and idempotent.

Every line is parsed and validated, and every reference between lines checked, before anything is written; then
everything is written in one transaction, or nothing is (a bad line is refused with its number). Rows are matched
to what the KB already holds, so importing the same file again adds nothing: users by id, sessions and turns by
their external ids, documents by slug, memories and insights by owner, text and creation time, edges by what they
link. Embeddings are not in the format: the KB's embedding job computes them after the import, and documents are
indexed by their own jobs.
"""

from __future__ import annotations

from django.db import transaction

from kbsite import locks
from kbsite.locks import Lock
from kbsite.models import KnowledgeBase
from knowledge.models import Document
from knowledge.services import enqueue_document
from memories.ingest import enqueue_extract
from memories.rights.import_checks import records_parse, references_check
from memories.rights.import_conversations import sessions_import, turns_import, users_import
from memories.rights.import_documents import documents_import
from memories.rights.import_memories import edges_import, insights_import, memories_import
from memories.rights.import_state import ImportState
from memories.services import enqueue_embed_missing


def kb_import(*, kb: KnowledgeBase, text: str) -> dict[str, int]:
    """Import an export file into ``kb``. Returns how many rows of each kind were added (``unchanged``: records
    the KB already held). Raises :class:`ImportRefused`, having written nothing, for a bad file."""
    by_type = records_parse(text)
    references_check(kb, by_type)
    state = ImportState(kb=kb, by_type=by_type)
    try:
        with transaction.atomic():
            locks.hold(Lock.KB_WRITE, kb.pk)  # no extraction applies to the KB meanwhile
            users_import(state)
            sessions_import(state)
            turns_import(state)
            documents_import(state)
            memories_import(state)
            insights_import(state)
            edges_import(state)
            pending_turns = state.counts["turns"] > 0
            transaction.on_commit(lambda: _after(kb, state.new_documents, pending_turns))
    except BaseException:
        for path in state.files:  # markdown files written for the rolled-back documents
            path.unlink(missing_ok=True)
        raise
    return dict(state.counts)


def _after(kb: KnowledgeBase, documents: list[Document], pending_turns: bool) -> None:
    """Once committed: embed the new memories and insights, index the new documents, and extract any turns
    that were not extracted where the file came from."""
    enqueue_embed_missing(kb_id=kb.pk)
    for document in documents:
        enqueue_document(document=document)
    if pending_turns:
        enqueue_extract(kb=kb)
