"""The places of each stored reading read again without the name of whom it is said by: an earlier release counted
"Preston" in "Ella Preston: …" (and "Sofia" in "Sofia: …") as a place the memory names, so asked where, every
statement of such a user named one. Only the readings that change are written."""

import json

from django.db import migrations

BATCH = 2000


def places_again(apps, schema_editor):
    from kbsite import languages
    from kbsite.languages.reading import places_said

    connection = schema_editor.connection
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT id, text, language, reading -> 'places', coalesce(reading ->> 'speaker', '')
                   FROM memories_memory
                   WHERE id > %s AND jsonb_array_length(coalesce(reading -> 'places', '[]'::jsonb)) > 0
                   ORDER BY id LIMIT %s""",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            changed = []
            for pk, text, language, stored, speaker in rows:
                with languages.override(language or languages.DEFAULT):
                    places = places_said(text, speaker)
                if places != stored:
                    changed.append((json.dumps(places), pk))
            cursor.executemany(
                "UPDATE memories_memory SET reading = jsonb_set(reading, '{places}', %s::jsonb) WHERE id = %s", changed
            )
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0026_german_reread"),
    ]

    operations = [migrations.RunPython(places_again, migrations.RunPython.noop, elidable=True)]
