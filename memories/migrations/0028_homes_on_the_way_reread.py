"""The memories in English, German and Portuguese read again: an earlier release read no home in "we moved up the
coast to Skerries", "I quit my job and moved to Cobh", "meine neue Wohnung in Pankow" or "meu apartamento novo em
Niterói". Only the readings that change are written."""

from django.db import migrations


def reread(apps, schema_editor):
    from memories.ingest.rereading import reread_languages

    reread_languages(schema_editor.connection, ("en", "", "de", "pt"))


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0027_places_without_speaker"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
