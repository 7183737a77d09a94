"""The places each stored reading names (kbsite.languages.places), for the memories read before readings held them:
asked where, recall finds an end user's latest memories that name a place by their readings."""

import json

from django.db import migrations

BATCH = 2000


def places_add(apps, schema_editor):
    from kbsite import languages
    from kbsite.languages.places import places_named

    connection = schema_editor.connection
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT id, text, language FROM memories_memory
                   WHERE id > %s AND reading ? 'speaker' AND NOT reading ? 'places' ORDER BY id LIMIT %s""",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            found = []
            for pk, text, language in rows:
                with languages.override(language or languages.DEFAULT):
                    found.append((json.dumps(places_named(text)), pk))
            cursor.executemany(
                "UPDATE memories_memory SET reading = jsonb_set(reading, '{places}', %s::jsonb) WHERE id = %s", found
            )
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0019_multilingual_index"),
    ]

    operations = [migrations.RunPython(places_add, migrations.RunPython.noop, elidable=True)]
