"""Fast bulk writes for the ingest hot path.

Ingest is embedding-bound by design; the ORM's per-row work (model instances,
text-encoding 384 floats per vector) would otherwise cost a visible share of
it. Memories are written with one binary COPY, their ids reserved up front.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg
from django.db import connection
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo

from memories.models import Memory

_vector_info: dict[int, TypeInfo] = {}

# Columns written by COPY, with their PostgreSQL types (binary format needs them).
MEMORY_COLUMNS = [
    ("id", "bigint"),
    ("kb_id", "bigint"),
    ("text", "text"),
    ("kind", "text"),
    ("entities", "varchar[]"),
    ("topics", "varchar[]"),
    ("importance", "float8"),
    ("embedding", "vector"),
    ("in_vector_index", "bool"),
    ("content_hash", "text"),
    ("valid_from", "timestamptz"),
    ("retired_reason", "text"),
    ("source", "text"),
    ("source_file", "text"),
    ("source_chunk_id", "bigint"),
    ("mode", "text"),
    ("job_run_id", "bigint"),
    ("consolidated", "bool"),
    ("quarantined", "bool"),
    ("quarantine_reason", "text"),
    ("created_at", "timestamptz"),
    ("updated_at", "timestamptz"),
]


def vector_cursor(*, binary_results: bool = False):
    """A psycopg cursor on Django's connection (same transaction) that speaks pgvector in binary.

    With ``binary_results``, a server-side-binding cursor that can fetch results in binary
    (``execute(..., binary=True)``): vectors arrive as packed floats instead of text to parse.
    """
    connection.ensure_connection()
    raw = connection.connection
    info = _vector_info.get(id(raw))
    if info is None:
        info = _vector_info[id(raw)] = TypeInfo.fetch(raw, "vector")
    cursor = psycopg.Cursor(raw) if binary_results else raw.cursor()
    register_vector_info(cursor, info)
    return cursor


def as_vectors(vectors: Sequence) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float32) for v in vectors]


def memories_insert(memories: list[Memory]) -> None:
    """Insert ``memories`` (unsaved instances) with one COPY; sets their ``pk``."""
    if not memories:
        return
    with vector_cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('memories_memory', 'id')) FROM generate_series(1, %s)",
            [len(memories)],
        )
        ids = [row[0] for row in cursor.fetchall()]
        columns = ", ".join(name for name, _ in MEMORY_COLUMNS)
        with cursor.copy(f"COPY memories_memory ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types([pg_type for _, pg_type in MEMORY_COLUMNS])
            for pk, m in zip(ids, memories, strict=True):
                m.pk = pk
                m.importance = float(m.importance)
                m.updated_at = m.updated_at or m.created_at
                copy.write_row([getattr(m, name) for name, _ in MEMORY_COLUMNS])
