"""Fast bulk writes for the ingest hot path.

Ingest is embedding-bound by design; the ORM's per-row work (model instances,
text-encoding 384 floats per vector) would otherwise cost a visible share of
it. Memories are written with one binary COPY, their ids reserved up front;
posted turns with one INSERT from arrays.
"""

from __future__ import annotations

from django.db import connection
from django.utils import timezone
from psycopg.types.json import Jsonb

from kbsite.ai.vectors import vector_cursor
from memories import webhooks
from memories.models import Memory, Message

# Columns written by COPY, with their PostgreSQL types (binary format needs them).
MEMORY_COLUMNS = [
    ("id", "bigint"),
    ("kb_id", "bigint"),
    ("end_user_id", "bigint"),
    ("text", "text"),
    ("language", "text"),
    ("reading", "jsonb"),
    ("kind", "text"),
    ("entities", "varchar[]"),
    ("topics", "varchar[]"),
    ("importance", "float8"),
    ("embedding", "vector"),
    ("in_vector_index", "bool"),
    ("content_hash", "text"),
    ("valid_from", "timestamptz"),
    ("valid_to", "timestamptz"),
    ("retired_reason", "text"),
    ("source", "text"),
    ("metadata", "jsonb"),
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


def messages_insert(*, kb_id: int, session_id: int, messages: list[dict]) -> None:
    """Insert turns (validated API input: external_id, content, optional role, speaker, created_at; the language
    told) in one
    statement, their ids in the order given. Building and compiling a model instance per turn cost the web
    process more than the rest of storing them."""
    if not messages:
        return
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO memories_message
                   (kb_id, session_id, end_user_id, external_id, role, speaker, content, language, metadata,
                    created_at, received_at)
               SELECT %s, s.id, s.end_user_id, u.external_id, u.role, u.speaker, u.content, u.language, u.metadata,
                      u.created_at, %s
               FROM memories_session s,
                    unnest(%s::varchar[], %s::varchar[], %s::varchar[], %s::text[], %s::varchar[], %s::jsonb[],
                           %s::timestamptz[])
                    WITH ORDINALITY AS u(external_id, role, speaker, content, language, metadata, created_at, n)
               WHERE s.id = %s
               ORDER BY u.n""",
            [
                kb_id,
                now,
                [m["external_id"] for m in messages],
                [m.get("role") or Message.Role.USER for m in messages],
                [m.get("speaker") or "" for m in messages],
                [m["content"] for m in messages],
                [m.get("language") or "" for m in messages],
                [Jsonb(m.get("metadata") or {}) for m in messages],
                [m.get("created_at") or now for m in messages],
                session_id,
            ],
        )


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
                m.metadata, m.reading = m.metadata or {}, m.reading or {}
                copy.write_row(
                    [Jsonb(getattr(m, name)) if kind == "jsonb" else getattr(m, name) for name, kind in MEMORY_COLUMNS]
                )
    webhooks.memories_created(memories)
