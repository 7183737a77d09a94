"""Bi-temporal memories: the time a fact was retired (system time) is ``retired_at`` (it was ``valid_to``), and
``valid_to`` is now valid time, when the fact stopped being true in the world. Insights and edges keep their
retirement as ``retired_at`` too. A fact already replaced by a newer one gets the valid time the release sets on
supersession: it ends where its replacement's begins."""

from django.db import migrations, models


def end_valid_time_of_superseded_facts(apps, schema_editor):
    schema_editor.execute(
        """UPDATE memories_memory old SET valid_to = GREATEST(old.valid_from, COALESCE(new.valid_from, old.retired_at))
           FROM memories_memory new
           WHERE old.superseded_by_id = new.id AND old.retired_at IS NOT NULL
             AND old.retired_reason = 'superseded by a newer fact'"""
    )


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0005_metadata"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="edge", name="unique_live_edge"),
        migrations.RemoveIndex(model_name="memory", name="memory_kb_unconsolidated"),
        migrations.RenameField(model_name="memory", old_name="valid_to", new_name="retired_at"),
        migrations.RenameField(model_name="insight", old_name="valid_to", new_name="retired_at"),
        migrations.RenameField(model_name="edge", old_name="valid_to", new_name="retired_at"),
        migrations.AlterField(
            model_name="memory",
            name="retired_at",
            field=models.DateTimeField(
                blank=True, help_text="System time: when kbsite retired it (superseded, edited, forgotten).", null=True
            ),
        ),
        migrations.AlterField(
            model_name="memory",
            name="valid_from",
            field=models.DateTimeField(
                blank=True, help_text="Valid time: when the fact became true in the world, if known.", null=True
            ),
        ),
        migrations.AddField(
            model_name="memory",
            name="valid_to",
            field=models.DateTimeField(
                blank=True,
                help_text="Valid time: when it stopped being true (where the fact replacing it began).",
                null=True,
            ),
        ),
        migrations.AddConstraint(
            model_name="edge",
            constraint=models.UniqueConstraint(
                condition=models.Q(("retired_at__isnull", True)),
                fields=("kb", "src", "relation", "dst"),
                name="unique_live_edge",
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("consolidated", False), ("retired_at__isnull", True)),
                fields=["kb", "created_at"],
                name="memory_kb_unconsolidated",
            ),
        ),
        migrations.RunPython(end_valid_time_of_superseded_facts, migrations.RunPython.noop),
    ]
