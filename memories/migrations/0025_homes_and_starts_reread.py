"""The English and Spanish memories read again: an earlier release read no home rented ("we rent a flat in
Chorlton", "alquilamos un piso en Triana") or named as one's new one inside a clause ("from the window of my new flat
in Hove…", "desde mi piso nuevo en Gijón…"), no job begun ("I begin as a staff nurse at…", "starting at Deliveroo",
"empiezo como enfermero en…"), and nothing after a time said before the subject ("In September I…"). Only the
readings that change are written."""

from django.db import migrations


def reread(apps, schema_editor):
    from memories.ingest.rereading import reread_languages

    reread_languages(schema_editor.connection, ("en", "", "es"))


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0024_attributes_reread"),
    ]

    operations = [migrations.RunPython(reread, migrations.RunPython.noop, elidable=True)]
