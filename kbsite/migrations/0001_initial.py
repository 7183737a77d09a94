"""Bots, API keys, knowledge bases and job runs, taken over from the memories app with their tables (see _released)."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models
from pgvector.django import VectorExtension

from kbsite.migrations._released import RELEASED


class Migration(migrations.Migration):

    initial = True
    replaces = RELEASED

    dependencies = [
    ]

    operations = [
        # pgvector must exist before any vector column is created (the domain apps' tables).
        VectorExtension(),
        migrations.CreateModel(
            name='Bot',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=64, unique=True, validators=[django.core.validators.RegexValidator('^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', 'Use 1-64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.')])),
                ('description', models.TextField(blank=True)),
                ('is_active', models.BooleanField(default=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'memories_bot',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='ApiKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(default='default', max_length=100)),
                ('prefix', models.CharField(help_text='First characters of the key, to recognise it.', max_length=16)),
                ('hashed_key', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('last_used_at', models.DateTimeField(blank=True, null=True)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('bot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_keys', to='kbsite.bot')),
            ],
            options={
                'verbose_name': 'API key',
                'db_table': 'memories_apikey',
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='KnowledgeBase',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=64, validators=[django.core.validators.RegexValidator('^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', 'Use 1-64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.')])),
                ('description', models.TextField(blank=True)),
                ('always_on', models.BooleanField(default=False, help_text="Inject this KB's memory into every context request of the bot, and consolidate it on a schedule.")),
                ('consolidate_interval_minutes', models.PositiveIntegerField(default=30, validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(10080)])),
                ('is_active', models.BooleanField(default=True)),
                ('term_stats_memories', models.PositiveIntegerField(default=0, editable=False)),
                ('vector_index', models.BooleanField(default=False, editable=False, help_text='Its memories are searched through the approximate vector index (HNSW); a KB is searched exactly until it outgrows VECTOR_INDEX_MIN_MEMORIES.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('bot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='knowledge_bases', to='kbsite.bot')),
            ],
            options={
                'verbose_name': 'knowledge base',
                'db_table': 'memories_knowledgebase',
                'ordering': ['bot__name', 'name'],
            },
        ),
        migrations.CreateModel(
            name='JobRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('ingest_messages', 'Ingest messages'), ('ingest_text', 'Ingest text'), ('ingest_file', 'Ingest inbox file'), ('consolidate', 'Consolidate'), ('sync', 'Knowledge sync'), ('document', 'Index document'), ('archive', 'Archive conversation'), ('embed', 'Embed')], max_length=32)),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed'), ('skipped', 'Skipped')], default='queued', max_length=16)),
                ('target', models.CharField(blank=True, help_text='Session, file or document the job works on.', max_length=500)),
                ('ingest_item_id', models.BigIntegerField(blank=True, null=True)),
                ('mode', models.CharField(blank=True, choices=[('llm', 'LLM'), ('heuristic', 'Heuristic (offline)'), ('manual', 'Manual')], max_length=16)),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('items_read', models.PositiveIntegerField(default=0)),
                ('facts_added', models.PositiveIntegerField(default=0)),
                ('facts_superseded', models.PositiveIntegerField(default=0)),
                ('facts_skipped', models.PositiveIntegerField(default=0)),
                ('facts_quarantined', models.PositiveIntegerField(default=0)),
                ('tokens_in', models.PositiveIntegerField(default=0)),
                ('tokens_out', models.PositiveIntegerField(default=0)),
                ('error', models.TextField(blank=True)),
                ('detail', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('kb', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='job_runs', to='kbsite.knowledgebase')),
            ],
            options={
                'verbose_name': 'job run',
                'db_table': 'memories_jobrun',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.AddConstraint(
            model_name='knowledgebase',
            constraint=models.UniqueConstraint(fields=('bot', 'name'), name='unique_kb_name_per_bot'),
        ),
        migrations.AddIndex(
            model_name='jobrun',
            index=models.Index(fields=['kb', 'status'], name='memories_jo_kb_id_5a3399_idx'),
        ),
        migrations.AddIndex(
            model_name='jobrun',
            index=models.Index(fields=['status', '-created_at'], name='memories_jo_status_ab59a4_idx'),
        ),
    ]
