"""German memories read again (kbsite.languages.de.statements): read before German had a reader of statements, their
stored readings hold no attributes; what came after what is then found by attribute too."""

import json

from django.db import migrations

BATCH = 2000


def german_read(apps, schema_editor):
    from kbsite import languages
    from kbsite.languages.reading import reading_of

    connection = schema_editor.connection
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT id, text FROM memories_memory
                   WHERE id > %s AND language = 'de' AND reading ? 'speaker' ORDER BY id LIMIT %s""",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            with languages.override("de"):
                read = [(json.dumps(reading_of(text)), pk) for pk, text in rows]
            cursor.executemany("UPDATE memories_memory SET reading = %s::jsonb WHERE id = %s", read)
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0020_reading_places"),
    ]

    operations = [migrations.RunPython(german_read, migrations.RunPython.noop, elidable=True)]
