"""The memories in English, German and Portuguese read again: an earlier release read no home in "we moved up the
coast to Skerries", "I quit my job and moved to Cobh", "meine neue Wohnung in Pankow" or "meu apartamento novo em
Niterói". Only the readings that change are written."""

import json

from django.db import migrations

BATCH = 2000


def reread(apps, schema_editor):
    from kbsite import languages
    from memories.ingest.statements import reading

    connection = schema_editor.connection
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
                   WHERE m.id > %s AND m.language IN ('en', '', 'de', 'pt')
                   ORDER BY m.id LIMIT %s""",
                [last, BATCH],
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


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0027_places_without_speaker"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
