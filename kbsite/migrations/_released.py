"""The migrations of the last release, which the three initial migrations stand for (the loader skips this module).

That release's migrations went both ways between ``memories`` and ``knowledge``. kbsite 0001, knowledge 0001
and memories 0001 each replace all of them: on a database of that release they are recorded as applied
without running; on a new database they create the same schema, in one direction (kbsite <- knowledge <-
memories). A database part-way through the release's migrations must first be migrated with that release.
"""

RELEASED = [
    ("memories", "0001_vector_extension"),
    ("knowledge", "0001_initial"),
    ("memories", "0002_initial"),
    ("memories", "0003_ingest_items"),
    ("memories", "0004_session_archived_through"),
    ("knowledge", "0002_initial"),
    ("knowledge", "0003_document_document_session_id"),
    ("knowledge", "0004_document_quarantine_reason"),
    ("memories", "0005_ingestitem_document_alter_ingestitem_kind"),
    ("memories", "0006_knowledgebase_term_stats_memories_termstat"),
    ("memories", "0007_session_claim"),
    ("memories", "0008_vector_index_for_large_kbs"),
]
