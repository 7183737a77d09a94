"""The memories in French read again: an earlier release had no reader of French statements, so "On a déménagé à
Angers" stated no home and retired none. Only the readings that change are written."""

from django.db import migrations


def reread(apps, schema_editor):
    from memories.ingest.rereading import reread_languages

    reread_languages(schema_editor.connection, ("fr",))


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0028_homes_on_the_way_reread"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
