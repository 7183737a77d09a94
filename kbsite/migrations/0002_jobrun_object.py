"""A job run names what it works on through a generic relation (as NetBox's Job does), so the base app refers
to no domain model: the release kept an ingest item's id in its own column and a document's or a session's in
``target``. The four models' content types (and with them their permissions) follow them to kbsite."""

import django.db.models.deletion
from django.db import migrations, models

# Where the release kept each kind of job's object: (its content type, the SQL that selects the job rows).
OBJECTS = [
    (("memories", "ingestitem"), "ingest_item_id", "ingest_item_id IS NOT NULL"),
    (("knowledge", "document"), "target::bigint", "kind = 'document' AND target ~ '^[0-9]{1,18}$'"),
    (("memories", "session"), "target::bigint", "kind = 'archive' AND target ~ '^[0-9]{1,18}$'"),
]
MOVED = ("bot", "apikey", "knowledgebase", "jobrun")


def point_at_objects(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    with schema_editor.connection.cursor() as cursor:
        for (app_label, model), object_id, where in OBJECTS:
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM memories_jobrun WHERE {where})")
            if cursor.fetchone()[0]:
                content_type, _ = ContentType.objects.get_or_create(app_label=app_label, model=model)
                cursor.execute(
                    f"UPDATE memories_jobrun SET object_type_id = %s, object_id = {object_id} WHERE {where}",
                    [content_type.pk],
                )


def point_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    item = ContentType.objects.filter(app_label="memories", model="ingestitem").first()
    if item is not None:
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                "UPDATE memories_jobrun SET ingest_item_id = object_id WHERE object_type_id = %s", [item.pk]
            )


def move_content_types(apps, schema_editor, source="memories", target="kbsite"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not ContentType.objects.filter(app_label=target, model=model).exists():
            ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, source="kbsite", target="memories")


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('kbsite', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='jobrun',
            name='object_id',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='jobrun',
            name='object_type',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='contenttypes.contenttype'),
        ),
        migrations.RunPython(point_at_objects, point_back),
        migrations.RemoveField(
            model_name='jobrun',
            name='ingest_item_id',
        ),
        migrations.AlterField(
            model_name='jobrun',
            name='kind',
            field=models.CharField(choices=[('ingest_messages', 'Ingest messages'), ('ingest_text', 'Ingest text'), ('ingest_file', 'Ingest inbox file'), ('consolidate', 'Consolidate'), ('sync', 'Knowledge sync'), ('document', 'Index document'), ('archive', 'Archive conversation')], max_length=32),
        ),
        migrations.AddIndex(
            model_name='jobrun',
            index=models.Index(fields=['object_type', 'object_id'], name='jobrun_object'),
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
