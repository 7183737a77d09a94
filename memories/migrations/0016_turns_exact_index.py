# LLM-mode recall over a million turns (issue 43): the searched turns outside the HNSW index, by session.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0021_write_marks'),
        ('memories', '0015_message_vector_index'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='message',
            index=models.Index(condition=models.Q(('embedding__isnull', False), ('in_vector_index', False)), fields=['session'], name='message_exact'),
        ),
    ]
