"""The memories read as stating an attribute, or a thing ended, read again. An earlier release read as no longer
working somewhere: leaving for a trip, leaving a thing somewhere, leaving home, stopping a habit ("I quit smoking",
"dejé de fumar", "deixei de fumar"). It read joining a club as an employer, a month as a home or an employer ("I
moved in June"), an idiom or a visit as a home ("living in the moment", "in London for a conference"), a time as an
employer ("I work at night"), a state as a thing's value ("my car is in the shop"), Spanish and Portuguese idioms as
a home or an employer ("vivo en las nubes", "entrei em pânico"), and ran a value on past chat's fillers ("the vet job
obviously"), "call me crazy" as a name, "engaged in a lawsuit" as a partner, and cut an e-mail address at its
first dot. It read "I dropped the kids at school" and "I lost my keys" as ending them, and "the" as a word of a
thing ended. Only the readings that change are written."""

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
                   WHERE m.id > %s AND (m.reading -> 'slots' <> '{}'::jsonb OR m.reading -> 'changes' <> '[]'::jsonb)
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
        ("memories", "0023_english_subject_dropped_reread"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
