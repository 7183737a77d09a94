"""The delivery log is pruned: finished deliveries (succeeded, or failed for good) older than
WEBHOOK_DELIVERY_RETENTION_DAYS go, with their attempts, in batches, by an hourly schedule; pending ones stay."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_q.models import Schedule

from kbsite.schedules import ensure_schedules
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from kbsite.webhooks.services import deliveries_prune
from kbsite.webhooks.tasks import deliveries_old_prune
from tests.conftest import run_queued_tasks
from tests.kbsite.webhooks.conftest import register
from tests.kbsite.webhooks.test_delivery import retire

ROOT = Path(__file__).resolve().parents[3]


def aged(delivery: WebhookDelivery, days: float) -> WebhookDelivery:
    WebhookDelivery.objects.filter(pk=delivery.pk).update(created_at=timezone.now() - timedelta(days=days))
    return delivery


def test_only_finished_deliveries_older_than_the_retention_are_deleted_with_their_attempts(api, kb, receiver, settings):
    """Real deliveries to the receiver, then aged: of those older than 30 days the succeeded and the failed ones go
    (their attempts too, a redelivery of one kept, its link cleared), the pending one stays; younger ones stay
    whatever their status. Batches of one delete them all; a second run deletes nothing."""
    settings.WEBHOOK_ATTEMPTS, settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 1, 30
    register(api, receiver, ["memory.retired"])
    receiver.answers = [500]  # the first fails for good
    for text in ("One.", "Two.", "Three.", "Four."):
        retire(api, kb, text)
        run_queued_tasks()
    settings.WEBHOOK_ATTEMPTS, settings.WEBHOOK_RETRY_INLINE_SECONDS = 2, 0
    receiver.answers = [500]  # the last is refused once and waits for its next attempt
    retire(api, kb, "Five.")
    run_queued_tasks()
    old_failed, old_succeeded, young_succeeded, young_failed, old_pending = WebhookDelivery.objects.order_by("pk")
    assert [old_failed.status, old_succeeded.status, old_pending.status] == ["failed", "succeeded", "pending"]
    assert old_pending.attempts == 1 and len(receiver.received) == 5
    WebhookDelivery.objects.filter(pk=young_failed.pk).update(status="failed")
    redelivered = WebhookDelivery.objects.create(
        bot=old_succeeded.bot,
        endpoint=old_succeeded.endpoint,
        event_id=old_succeeded.event_id,
        event_type=old_succeeded.event_type,
        body=old_succeeded.body,
        status="succeeded",
        redelivery_of=old_succeeded,
    )
    for old in (old_failed, old_pending, old_succeeded):
        aged(old, 31)
    aged(young_succeeded, 29)
    attempts = WebhookAttempt.objects.count()

    assert deliveries_prune(batch=1) == 2
    kept = set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert kept == {old_pending.pk, young_succeeded.pk, young_failed.pk, redelivered.pk}
    assert not WebhookAttempt.objects.filter(delivery_id__in=[old_failed.pk, old_succeeded.pk]).exists()
    assert WebhookAttempt.objects.count() == attempts - 2  # the failed one's, the succeeded one's
    redelivered.refresh_from_db()
    assert redelivered.redelivery_of is None
    assert deliveries_old_prune() == 0  # the scheduled task: nothing more to delete
    assert WebhookEndpoint.objects.count() == 1


def test_the_prune_takes_the_oldest_first_from_an_index_of_the_finished_ones(bot):
    """Each batch is read oldest first (not the log's newest-first order, which scanned the whole table for each),
    and the database has the partial index on created_at of the finished deliveries that gives it."""
    endpoint = WebhookEndpoint.objects.create(bot=bot, url="https://93.184.216.34/hook", events=["job.failed"])
    for n in range(3):
        aged(
            WebhookDelivery.objects.create(bot=bot, endpoint=endpoint, event_id=f"evt_{n}", event_type="job.failed"), 40
        )
    WebhookDelivery.objects.update(status="succeeded")

    with CaptureQueriesContext(connection) as queries:
        assert deliveries_prune(batch=2) == 3
    reads = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and "LIMIT 2" in q["sql"]]
    assert reads and all('ORDER BY "kbsite_webhookdelivery"."created_at" ASC' in sql for sql in reads)

    with connection.cursor() as cursor:
        index = connection.introspection.get_constraints(cursor, WebhookDelivery._meta.db_table).get(
            "webhook_delivery_finished"
        )
        assert index and index["index"] and index["columns"] == ["created_at"]
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'webhook_delivery_finished'")
        (definition,) = cursor.fetchone()
    assert "WHERE" in definition and "'succeeded'" in definition and "'failed'" in definition


def test_the_retention_is_the_settings_and_the_prune_runs_every_hour(bot, settings):
    """Shortening WEBHOOK_DELIVERY_RETENTION_DAYS prunes what it no longer keeps; the schedule is made after
    migrate, once however often that runs."""
    endpoint = WebhookEndpoint.objects.create(bot=bot, url="https://93.184.216.34/hook", events=["job.failed"])
    delivery = aged(
        WebhookDelivery.objects.create(bot=bot, endpoint=endpoint, event_id="evt_1", event_type="job.failed"), 10
    )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="succeeded")
    settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 30
    assert deliveries_old_prune() == 0
    settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 7
    assert deliveries_old_prune() == 1 and not WebhookDelivery.objects.exists()

    ensure_schedules()
    ensure_schedules()
    schedule = Schedule.objects.get(name="webhook-deliveries-prune")
    assert schedule.func == "kbsite.webhooks.tasks.deliveries_old_prune" and schedule.minutes == 60
    assert schedule.repeats == -1


def test_the_retention_is_read_from_the_environment(tmp_path):
    """WEBHOOK_DELIVERY_RETENTION_DAYS: 30 days unless set; a value below one day stops the start, saying why."""
    code = "from kbsite import settings; print(settings.WEBHOOK_DELIVERY_RETENTION_DAYS)"

    def read(value: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "KBSITE_VAR_DIR": str(tmp_path / "var"), "SECRET_KEY": "s" * 50}
        env.update(DATABASE_URL="postgresql://kb@db/x", WEBHOOK_DELIVERY_RETENTION_DAYS=value)
        return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)

    assert read("").stdout.strip() == "30"
    assert read("90").stdout.strip() == "90"
    refused = read("0")
    assert refused.returncode != 0 and "WEBHOOK_DELIVERY_RETENTION_DAYS must be at least 1" in refused.stderr
