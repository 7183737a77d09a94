# Issue 40, cross-language recall the other way round: the languages other than English a KB's questions have come in.

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0021_write_marks'),
    ]

    operations = [
        migrations.AddField(
            model_name='knowledgebase',
            name='asked_languages',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=8), blank=True, default=list, editable=False, help_text='The languages other than English its questions have come in, as told: its memories get a second, multilingual vector, so that a question in one finds facts said in another.', size=None),
        ),
    ]
