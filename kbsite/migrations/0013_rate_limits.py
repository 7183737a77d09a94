# Rate limits (issue 32): the bot's requests per minute and LLM budget settings, each key's token bucket (an UNLOGGED
# table: no WAL or fsync per request; after a crash the buckets start full) and the refusals per bot and day.

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

import kbsite.models.bots


class Migration(migrations.Migration):

    dependencies = [
        ('kbsite', '0012_usage'),
    ]

    operations = [
        migrations.AddField(
            model_name='bot',
            name='requests_per_minute',
            field=models.PositiveIntegerField(default=kbsite.models.bots.default_requests_per_minute, help_text="Requests each of the bot's API keys may make per minute (the API, the chat proxy, MCP), plus a burst of RATE_LIMIT_BURST_SECONDS' worth (10 s: a sixth) at once; past it a 429 with Retry-After. 0: no limit.", validators=[django.core.validators.MaxValueValidator(1000000)]),
        ),
        migrations.AddField(
            model_name='bot',
            name='llm_tokens_per_day',
            field=models.PositiveBigIntegerField(blank=True, help_text="LLM tokens (in and out) the bot's jobs and answers may spend per day (UTC); empty: no budget. Not enforced yet.", null=True, validators=[django.core.validators.MinValueValidator(1)]),
        ),
        migrations.AddField(
            model_name='bot',
            name='when_budget_spent',
            field=models.CharField(choices=[('offline', 'extraction goes on offline (heuristics) until the next day'), ('wait', 'extraction waits (turns stay queued) until the next day')], default='offline', help_text="Once the day's LLM tokens are spent: extraction goes on offline, or waits until the next day.", max_length=16),
        ),
        migrations.CreateModel(
            name='RateBucket',
            fields=[
                ('key', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='kbsite.apikey')),
                ('tokens', models.FloatField()),
                ('refilled_at', models.DateTimeField()),
                ('allowed', models.BooleanField()),
            ],
            options={
                'db_table': 'kbsite_ratebucket',
            },
        ),
        migrations.RunSQL('ALTER TABLE kbsite_ratebucket SET UNLOGGED', 'ALTER TABLE kbsite_ratebucket SET LOGGED'),
        migrations.CreateModel(
            name='RateLimitedDay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('refused', models.PositiveBigIntegerField(default=0, help_text='Requests refused with 429.')),
                ('bot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rate_limited_days', to='kbsite.bot')),
            ],
            options={
                'ordering': ['-day', 'bot'],
                'constraints': [models.UniqueConstraint(fields=('day', 'bot'), name='one_rate_limited_day_per_bot')],
            },
        ),
    ]
