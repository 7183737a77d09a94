"""The offline facts of users' turns read again as their speakers' own words (memories.ingest.extraction's
``Fact.own``): posted with no speaker's name, a Spanish turn opening on a verb ("Trabajo de enfermera…") was read as
someone of that name's, and a short answer's reading held the bot's question it keeps ("(answering: …)"). And every
Portuguese memory, read before Portuguese had a reader of statements."""

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
                """SELECT id, text, language, own FROM (
                       SELECT m.id, m.text, m.language, m.reading,
                              m.mode = 'heuristic' AND m.source_chunk_id IS NULL AND EXISTS (
                                  SELECT 1 FROM memories_memory_source_messages s
                                  JOIN memories_message g ON g.id = s.message_id
                                  WHERE s.memory_id = m.id AND g.role = 'user') AS own
                       FROM memories_memory m WHERE m.id > %s AND m.reading ? 'speaker') r
                   WHERE language = 'pt' OR (own AND (text LIKE '%%(answering: %%' OR (reading ->> 'speaker' <> ''
                         AND lower(text) NOT LIKE (reading ->> 'speaker') || ': %%')))
                   ORDER BY id LIMIT %s""",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            read = [
                (json.dumps(reading(text, language or languages.DEFAULT, own=own or None)), pk)
                for pk, text, language, own in rows
            ]
            cursor.executemany("UPDATE memories_memory SET reading = %s::jsonb WHERE id = %s", read)
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0021_kb_no_multilingual_index"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
