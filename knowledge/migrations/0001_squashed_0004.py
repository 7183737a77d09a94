"""Documents and their chunks, as the last release left them (see kbsite.migrations._released)."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
import django.db.models.fields.json
import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations, models

from kbsite.migrations._released import RELEASED


class Migration(migrations.Migration):

    initial = True
    replaces = RELEASED

    dependencies = [
        ('kbsite', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='Document',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.CharField(max_length=64)),
                ('title', models.CharField(blank=True, max_length=300)),
                ('doc_type', models.CharField(choices=[('markdown', 'Markdown'), ('upload', 'Upload'), ('conversation', 'Conversation'), ('text', 'Text')], default='markdown', max_length=16)),
                ('namespace', models.CharField(default='documents', max_length=200)),
                ('source', models.CharField(blank=True, help_text="Original file name, session, or 'api'.", max_length=300)),
                ('content', models.TextField(blank=True, help_text='Extracted text (the markdown itself for markdown files).')),
                ('content_hash', models.CharField(blank=True, max_length=64)),
                ('metadata', models.JSONField(blank=True, default=dict)),
                ('size_bytes', models.PositiveIntegerField(default=0)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('processing', 'Processing'), ('done', 'Done'), ('failed', 'Failed')], default='pending', max_length=16)),
                ('error', models.TextField(blank=True)),
                ('quarantine_reason', models.CharField(blank=True, help_text="Set when a chunk looks like a secret or a prompt injection: the document stays searchable by operators but never reaches a bot's context.", max_length=300)),
                ('deleted_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='documents', to='kbsite.knowledgebase')),
            ],
            options={
                'ordering': ['kb', 'slug'],
            },
        ),
        migrations.CreateModel(
            name='Chunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('ordinal', models.PositiveIntegerField()),
                ('text', models.TextField()),
                ('start_char', models.PositiveIntegerField(default=0)),
                ('embedding', pgvector.django.vector.VectorField(blank=True, dimensions=384, editable=False, null=True)),
                ('search_vector', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('text', config='english'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='kbsite.knowledgebase')),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='knowledge.document')),
            ],
            options={
                'ordering': ['document', 'ordinal'],
            },
        ),
        migrations.AddIndex(
            model_name='document',
            index=models.Index(fields=['kb', 'status'], name='knowledge_d_kb_id_1d2b3c_idx'),
        ),
        migrations.AddIndex(
            model_name='document',
            index=models.Index(django.db.models.fields.json.KeyTextTransform('session_id', 'metadata'), name='document_session_id'),
        ),
        migrations.AddConstraint(
            model_name='document',
            constraint=models.UniqueConstraint(fields=('kb', 'slug'), name='unique_document_slug_per_kb'),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='chunk_fts_gin'),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='chunk_embedding_hnsw', opclasses=['vector_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=models.Index(condition=models.Q(('embedding__isnull', False)), fields=['kb'], name='chunk_kb'),
        ),
        migrations.AddConstraint(
            model_name='chunk',
            constraint=models.UniqueConstraint(fields=('document', 'ordinal'), name='unique_chunk_ordinal'),
        ),
    ]
