"""Conversations, memories, insights, the entity graph and ingest items, as the last release left them
(see kbsite.migrations._released)."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations, models

from kbsite.migrations._released import RELEASED


class Migration(migrations.Migration):

    initial = True
    replaces = RELEASED

    dependencies = [
        ('kbsite', '0001_initial'),
        ('knowledge', '0001_squashed_0004'),
    ]

    operations = [
        migrations.CreateModel(
            name='Entity',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='Normalised (lowercase) name.', max_length=200)),
                ('display_name', models.CharField(blank=True, max_length=200)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entities', to='kbsite.knowledgebase')),
            ],
            options={
                'verbose_name_plural': 'entities',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='IngestItem',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('text', 'Text'), ('file', 'Inbox file'), ('document', 'Uploaded document')], default='text', max_length=8)),
                ('source', models.CharField(blank=True, max_length=300)),
                ('file_name', models.CharField(blank=True, max_length=255)),
                ('text', models.TextField(blank=True)),
                ('progress', models.PositiveIntegerField(default=0)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('done', 'Done'), ('failed', 'Failed')], default='pending', max_length=16)),
                ('error', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('processed_at', models.DateTimeField(blank=True, null=True)),
                ('document', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='ingest_items', to='knowledge.document')),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ingest_items', to='kbsite.knowledgebase')),
            ],
            options={
                'verbose_name': 'ingest item',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Memory',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('text', models.TextField()),
                ('kind', models.CharField(choices=[('fact', 'Fact'), ('preference', 'Preference'), ('user_profile', 'User profile'), ('project', 'Project'), ('env', 'Environment'), ('event', 'Event')], default='fact', max_length=20)),
                ('entities', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=200), blank=True, default=list, size=None)),
                ('topics', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=200), blank=True, default=list, size=None)),
                ('importance', models.FloatField(default=0.5, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                ('embedding', pgvector.django.vector.VectorField(blank=True, dimensions=384, editable=False, null=True)),
                ('in_vector_index', models.BooleanField(default=False, editable=False)),
                ('search_vector', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('text', config='english'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('content_hash', models.CharField(editable=False, max_length=64)),
                ('valid_from', models.DateTimeField(blank=True, help_text='When the fact became true, if known.', null=True)),
                ('valid_to', models.DateTimeField(blank=True, help_text='Set when the fact was retired.', null=True)),
                ('retired_reason', models.CharField(blank=True, max_length=200)),
                ('source', models.CharField(blank=True, help_text='chat, api, inbox file name, document…', max_length=300)),
                ('source_file', models.CharField(blank=True, max_length=500)),
                ('mode', models.CharField(choices=[('llm', 'LLM'), ('heuristic', 'Heuristic (offline)'), ('manual', 'Manual')], default='manual', max_length=16)),
                ('consolidated', models.BooleanField(default=False)),
                ('quarantined', models.BooleanField(default=False, help_text='Flagged on the write path; never injected into a context.')),
                ('quarantine_reason', models.CharField(blank=True, max_length=300)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('job_run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='memories', to='kbsite.jobrun')),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memories', to='kbsite.knowledgebase')),
                ('source_chunk', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='memories', to='knowledge.chunk')),
                ('superseded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='supersedes', to='memories.memory')),
            ],
            options={
                'verbose_name_plural': 'memories',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Edge',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('relation', models.CharField(max_length=100)),
                ('valid_to', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='edges', to='kbsite.knowledgebase')),
                ('dst', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='in_edges', to='memories.entity')),
                ('src', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='out_edges', to='memories.entity')),
                ('memory', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='edges', to='memories.memory')),
            ],
            options={
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='Consolidation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('text', models.TextField()),
                ('embedding', pgvector.django.vector.VectorField(blank=True, dimensions=384, editable=False, null=True)),
                ('search_vector', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('text', config='english'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('mode', models.CharField(choices=[('llm', 'LLM'), ('heuristic', 'Heuristic (offline)'), ('manual', 'Manual')], default='llm', max_length=16)),
                ('valid_to', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('job_run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='insights', to='kbsite.jobrun')),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='insights', to='kbsite.knowledgebase')),
                ('memories', models.ManyToManyField(blank=True, related_name='insights', to='memories.memory')),
            ],
            options={
                'verbose_name': 'insight',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Message',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(max_length=200)),
                ('role', models.CharField(choices=[('user', 'User'), ('assistant', 'Assistant'), ('system', 'System'), ('tool', 'Tool')], default='user', max_length=16)),
                ('speaker', models.CharField(blank=True, max_length=200)),
                ('content', models.TextField()),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, help_text="When the turn was said (client's clock).")),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='kbsite.knowledgebase')),
            ],
            options={
                'ordering': ['id'],
            },
        ),
        migrations.AddField(
            model_name='memory',
            name='source_messages',
            field=models.ManyToManyField(blank=True, related_name='memories', to='memories.message'),
        ),
        migrations.CreateModel(
            name='Session',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(max_length=200)),
                ('extracted_through', models.BigIntegerField(default=0)),
                ('archived_through', models.BigIntegerField(default=0)),
                ('claimed_until', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('claimed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='kbsite.jobrun')),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='kbsite.knowledgebase')),
            ],
            options={
                'ordering': ['-updated_at'],
            },
        ),
        migrations.AddField(
            model_name='message',
            name='session',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='memories.session'),
        ),
        migrations.CreateModel(
            name='TermStat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('term', models.CharField(max_length=200)),
                ('ndoc', models.PositiveIntegerField()),
                ('kb', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='term_stats', to='kbsite.knowledgebase')),
            ],
        ),
        migrations.AddConstraint(
            model_name='entity',
            constraint=models.UniqueConstraint(fields=('kb', 'name'), name='unique_entity_per_kb'),
        ),
        migrations.AddIndex(
            model_name='ingestitem',
            index=models.Index(fields=['kb', 'status'], name='memories_in_kb_id_b49fbd_idx'),
        ),
        migrations.AddConstraint(
            model_name='edge',
            constraint=models.UniqueConstraint(condition=models.Q(('valid_to__isnull', True)), fields=('kb', 'src', 'relation', 'dst'), name='unique_live_edge'),
        ),
        migrations.AddIndex(
            model_name='consolidation',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='insight_fts_gin'),
        ),
        migrations.AddIndex(
            model_name='consolidation',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='insight_embedding_hnsw', opclasses=['vector_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='memory_fts_gin'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=django.contrib.postgres.indexes.GinIndex(fields=['entities'], name='memory_entities_gin'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=pgvector.django.indexes.HnswIndex(condition=models.Q(('in_vector_index', True)), ef_construction=64, fields=['embedding'], m=16, name='memory_embedding_hnsw', opclasses=['vector_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(condition=models.Q(('in_vector_index', False)), fields=['kb'], name='memory_kb_exact'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(fields=['kb', 'content_hash'], name='memory_kb_hash'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(fields=['kb', '-created_at'], name='memory_kb_recent'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(condition=models.Q(('consolidated', False), ('valid_to__isnull', True)), fields=['kb', 'created_at'], name='memory_kb_unconsolidated'),
        ),
        migrations.AddConstraint(
            model_name='session',
            constraint=models.UniqueConstraint(fields=('kb', 'external_id'), name='unique_session_per_kb'),
        ),
        migrations.AddIndex(
            model_name='message',
            index=models.Index(fields=['session', 'id'], name='memories_me_session_f76b77_idx'),
        ),
        migrations.AddConstraint(
            model_name='message',
            constraint=models.UniqueConstraint(fields=('kb', 'external_id'), name='unique_message_per_kb'),
        ),
        migrations.AddConstraint(
            model_name='termstat',
            constraint=models.UniqueConstraint(fields=('kb', 'term'), name='unique_term_per_kb'),
        ),
        # A memory row (about 2.1 KB with its vector) stays whole in its page: past the default 2 KB target the
        # vector went to the TOAST table, and an exact scan of a KB read five buffers per memory instead of one.
        migrations.RunSQL(
            "ALTER TABLE memories_memory SET (toast_tuple_target = 4080)",
            "ALTER TABLE memories_memory RESET (toast_tuple_target)",
        ),
    ]
