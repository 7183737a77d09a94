"""The database the product runs on: PostgreSQL with pgvector, migrated."""

from __future__ import annotations

import re

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _indexes(table: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return dict(cursor.fetchall())


def test_vector_extension_is_installed_by_migrations():
    """Migrations create the pgvector extension, at a version with iterative index scans (0.8+)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    assert row is not None
    major, minor = (int(p) for p in row[0].split(".")[:2])
    assert (major, minor) >= (0, 8)


@pytest.mark.parametrize(
    ("table", "hnsw", "gin"),
    [
        ("memories_memory", "memory_embedding_hnsw", "memory_fts_gin"),
        ("memories_insight", "insight_shared_hnsw", "insight_fts_gin"),
        ("knowledge_chunk", "chunk_embedding_hnsw", "chunk_fts_gin"),
    ],
)
def test_search_indexes_exist(table, hnsw, gin):
    """Each searchable table has an HNSW cosine index on its embedding and a GIN index on its tsvector."""
    indexes = _indexes(table)
    assert "USING hnsw" in indexes[hnsw] and "vector_cosine_ops" in indexes[hnsw]
    assert "USING gin" in indexes[gin] and "search_vector" in indexes[gin]


def test_search_vector_is_generated_by_the_database(django_db_setup):
    """The full-text vector is computed by PostgreSQL from the text, stemmed in English."""
    from tests.factories import MemoryFactory

    memory = MemoryFactory(text="Alice is running marathons")
    memory.refresh_from_db()
    lexemes = set(re.findall(r"'([^']+)':", memory.search_vector))
    assert lexemes == {"alic", "run", "marathon"}  # stemmed ("running" is not a lexeme), "is" a stop word


def test_memories_are_never_deleted_by_retirement():
    """Retiring keeps the row, sets retired_at and the replacement; live() hides it, retired() shows it."""
    from memories.models import Memory
    from tests.factories import MemoryFactory

    old = MemoryFactory(text="Alice lives in Paris.")
    new = MemoryFactory(kb=old.kb, text="Alice lives in Berlin.")
    assert old.retire(reason="superseded", superseded_by=new) is True
    assert old.retire(reason="again") is False
    assert list(Memory.objects.live()) == [new]
    assert list(Memory.objects.retired()) == [old]
    old.refresh_from_db()
    assert old.superseded_by == new and old.retired_at is not None
