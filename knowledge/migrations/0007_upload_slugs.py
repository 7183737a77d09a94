"""Uploads whose file names held underscores were given slugs with them, which no document route takes: each becomes
the same slug with hyphens (numbered if that is taken). The file keeps its name: the document's metadata points to it."""

from django.db import migrations


def hyphenate(apps, schema_editor):
    Document = apps.get_model("knowledge", "Document")
    for document in Document.objects.filter(slug__contains="_").order_by("pk"):
        base = document.slug.replace("_", "-")
        slug, n = base, 2
        while Document.objects.filter(kb_id=document.kb_id, slug=slug).exists():
            slug, n = f"{base}-{n}", n + 1
        Document.objects.filter(pk=document.pk).update(slug=slug)


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0006_languages")]

    operations = [migrations.RunPython(hyphenate, migrations.RunPython.noop)]
