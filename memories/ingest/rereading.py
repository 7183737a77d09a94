"""Stored readings read again: what a migration runs once the offline readers of some languages read more than an
earlier release did, writing only the readings that change."""

from __future__ import annotations

import json

from kbsite import languages
from memories.ingest.statements import reading

BATCH = 2000


def reread_languages(connection, codes: tuple[str, ...]) -> None:
    """Every memory in one of the languages ``codes`` ("" is English, as an earlier release stored it) read again
    as ingest reads it now (a user's own turn read offline as their own words), by batches of BATCH ids."""
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT m.id, m.text, m.language, m.reading,
                          m.mode = 'heuristic' AND m.source_chunk_id IS NULL AND EXISTS (
                              SELECT 1 FROM memories_memory_source_messages s
                              JOIN memories_message g ON g.id = s.message_id
                              WHERE s.memory_id = m.id AND g.role = 'user') AS own
                   FROM memories_memory m
                   WHERE m.id > %s AND m.language = ANY(%s)
                   ORDER BY m.id LIMIT %s""",
                [last, list(codes), BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            read = [
                (pk, reading(text, language or languages.DEFAULT, own=own or None), stored)
                for pk, text, language, stored, own in rows
            ]
            changed = [(json.dumps(new), pk) for pk, new, stored in read if new != stored]
            cursor.executemany("UPDATE memories_memory SET reading = %s::jsonb WHERE id = %s", changed)
            last = rows[-1][0]
