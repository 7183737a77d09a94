# Searched turns of a large KB's shared sessions go into an HNSW index, as its memories do (issue 43).

import pgvector.django.indexes
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0014_memory_reading'),
    ]

    operations = [
        migrations.AddField(
            model_name='message',
            name='in_vector_index',
            field=models.BooleanField(db_default=False, default=False, editable=False),
        ),
        migrations.AddIndex(
            model_name='message',
            index=pgvector.django.indexes.HnswIndex(condition=models.Q(('in_vector_index', True)), ef_construction=64, fields=['embedding'], m=16, name='message_embedding_hnsw', opclasses=['vector_cosine_ops']),
        ),
        # The searched turns of the shared sessions of KBs already searched through the index join it.
        migrations.RunSQL(
            """UPDATE memories_message m SET in_vector_index = TRUE
               FROM memories_session s, memories_knowledgebase kb
               WHERE s.id = m.session_id AND kb.id = m.kb_id AND kb.vector_index AND s.end_user_id IS NULL
                 AND m.embedding IS NOT NULL""",
            migrations.RunSQL.noop,
        ),
    ]
