"""The German memories read again: an earlier release had no reader of German statements, and read no attribute in
them ("Ich wohne in Leipzig", "Ich arbeite bei Zeiss"). Only the readings that change are written."""

from django.db import migrations


def reread(apps, schema_editor):
    from memories.ingest.rereading import reread_languages

    reread_languages(schema_editor.connection, ("de",))


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0025_homes_and_starts_reread"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
