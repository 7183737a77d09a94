"""The offline facts of users' English turns read again, for what chat says leaving the "I" out ("Got a job at
Boots last week.", "I live in Bath and work as a midwife…"): an earlier release read nothing there. Only the readings that
change are written. A fact stating several attributes stays one memory (new turns are cut into one per attribute)."""

import json

from django.db import migrations

BATCH = 2000


def reread(apps, schema_editor):
    from memories.ingest.statements import reading

    connection = schema_editor.connection
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT m.id, m.text, m.reading FROM memories_memory m
                   WHERE m.id > %s AND m.reading ? 'speaker' AND m.language IN ('en', '')
                     AND m.mode = 'heuristic' AND m.source_chunk_id IS NULL AND EXISTS (
                         SELECT 1 FROM memories_memory_source_messages s
                         JOIN memories_message g ON g.id = s.message_id
                         WHERE s.memory_id = m.id AND g.role = 'user')
                   ORDER BY m.id LIMIT %s""",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            read = [(pk, reading(text, "en", own=True), stored) for pk, text, stored in rows]
            changed = [(json.dumps(new), pk) for pk, new, stored in read if new != stored]
            cursor.executemany("UPDATE memories_memory SET reading = %s::jsonb WHERE id = %s", changed)
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0022_own_words_reread"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
