# Read replicas (issue 43): where each bot's last write left the primary's WAL (an UNLOGGED table: a mark is worth
# no WAL of its own, and after a crash none is needed).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0020_user_id_letters'),
    ]

    operations = [
        migrations.CreateModel(
            name='WriteMark',
            fields=[
                ('bot', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='kbsite.bot')),
                ('lsn', models.CharField(max_length=32)),
            ],
            options={
                'db_table': 'kbsite_writemark',
            },
        ),
        migrations.RunSQL('ALTER TABLE kbsite_writemark SET UNLOGGED', 'ALTER TABLE kbsite_writemark SET LOGGED'),
    ]
