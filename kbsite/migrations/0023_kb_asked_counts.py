# Issue 40: a KB notes a language its questions come in after three questions in it, not one (a short English line is now
# and then told as another language): how many have come in each, until noted.

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0022_kb_asked_languages'),
    ]

    operations = [
        migrations.AddField(
            model_name='knowledgebase',
            name='asked_counts',
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.AlterField(
            model_name='knowledgebase',
            name='asked_languages',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=8), blank=True, default=list, editable=False, help_text='The languages other than English its questions have come in, as told (three questions in each): its memories get a second, multilingual vector, so that a question in one finds facts said in another.', size=None),
        ),
    ]
