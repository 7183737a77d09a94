# LLM-mode recall over a million turns (issue 43): a turn keeps its session's end user, so that a user's searched
# turns and the shared ones are read through indexes of their own.

import django.contrib.postgres.indexes
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0021_write_marks'),
        ('memories', '0016_turns_exact_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='message',
            name='message_exact',
        ),
        migrations.AddField(
            model_name='message',
            name='end_user',
            field=models.ForeignKey(blank=True, db_index=False, editable=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='kbsite.enduser'),
        ),
        migrations.RunSQL(
            """UPDATE memories_message m SET end_user_id = s.end_user_id
               FROM memories_session s WHERE s.id = m.session_id AND s.end_user_id IS NOT NULL""",
            migrations.RunSQL.noop,
        ),
        migrations.AddIndex(
            model_name='message',
            index=models.Index(condition=models.Q(('embedding__isnull', False), ('in_vector_index', False)), fields=['end_user'], name='message_user_exact'),
        ),
        migrations.AddIndex(
            model_name='message',
            index=models.Index(condition=models.Q(('embedding__isnull', False)), fields=['end_user'], name='message_user_searched'),
        ),
        migrations.AddIndex(
            model_name='message',
            index=django.contrib.postgres.indexes.GinIndex(condition=models.Q(('embedding__isnull', False), ('end_user__isnull', True)), fields=['search_vector'], name='message_shared_fts'),
        ),
    ]
