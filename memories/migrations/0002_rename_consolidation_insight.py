"""Consolidation is called "insight" everywhere else: the model, its table and its link table follow (a rename of
each, no copy; the content type and permissions follow it too)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0001_squashed_0008"),
    ]

    operations = [
        migrations.RenameModel("Consolidation", "Insight"),
    ]
