"""One emission's deliveries go to an endpoint from one task, one signed POST per event, in order; a failing one is
retried alone, on its own schedule, the others sent once; an endpoint disabled mid-batch is sent no more; a long
batch hands its rest on to a task of its own; the minute's sweep queues one task per endpoint too."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone
from django_q.models import OrmQ
from django_q.tasks import async_task

from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery
from kbsite.webhooks.services import BATCH_TASK, deliveries_due_queue, events_emit
from tests.conftest import run_queued_tasks
from tests.kbsite.webhooks.conftest import receiver_start, register
from tests.kbsite.webhooks.test_events import post_turns

FACTS = [
    "I moved to Lisbon in May.",
    "I am allergic to peanuts.",
    "My sister is called Ana.",
    "I work as a nurse.",
    "I drive a blue Volvo.",
    "I play the cello.",
]


def emit(bot, count: int) -> list[dict]:
    items = [{"kb": "notes", "n": n} for n in range(count)]
    assert events_emit(bot_id=bot.pk, type="memory.created", items=items) >= count
    return items


def posted(receiver) -> list[int]:
    return [r.event["data"]["n"] for r in receiver.received]


def test_an_ingest_of_many_memories_queues_one_delivery_task(api, kb, receiver):
    """Turns that make N memories: the extraction's memory.created events are one task, N signed POSTs."""
    register(api, receiver, ["memory.created"])
    post_turns(api, "batch", *FACTS)
    assert run_queued_tasks() == 1 + 1  # the extraction, then the deliveries of its memories
    created = WebhookDelivery.objects.filter(event_type="memory.created").count()
    assert created >= len(FACTS) - 1 and len(receiver.received) == created
    assert all(r.signed for r in receiver.received)
    assert len({r.event["id"] for r in receiver.received}) == created


def test_one_emission_is_one_task_per_endpoint_each_event_its_own_signed_post_in_order(api, kb, receiver):
    """N events to two endpoints: two tasks; each receiver gets N POSTs in the order emitted, each signed with its
    endpoint's secret, with its own event id; a rolled-back emission queues nothing."""
    register(api, receiver, ["memory.created"])
    second, server = receiver_start()
    try:
        register(api, second, ["memory.created"])
        with pytest.raises(RuntimeError), transaction.atomic():
            emit(api.bot, 5)
            raise RuntimeError("rolled back")
        assert OrmQ.objects.count() == 0 and WebhookDelivery.objects.count() == 0

        emit(api.bot, 5)
        assert OrmQ.objects.count() == 2
        assert run_queued_tasks() == 2
        for got in (receiver, second):
            assert posted(got) == [0, 1, 2, 3, 4] and all(r.signed for r in got.received)
            ids = [r.event["id"] for r in got.received]
            assert len(set(ids)) == 5 and ids == [r.headers["Kbsite-Event-Id"] for r in got.received]
        assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
    finally:
        server.shutdown()
        server.server_close()


def test_a_failing_delivery_is_retried_alone_after_its_wait_and_holds_up_none(api, kb, receiver, settings):
    """200, 500, 200: the second event is retried after its backoff, alone; the third is sent meanwhile; each of
    the others is delivered once."""
    settings.WEBHOOK_RETRY_SECONDS = 0.3
    register(api, receiver, ["memory.created"])
    receiver.answers = [200, 500, 200]
    emit(api.bot, 3)
    assert run_queued_tasks() == 1
    assert posted(receiver) == [0, 1, 2, 1] and all(r.signed for r in receiver.received)
    assert receiver.received[1].body == receiver.received[3].body  # the same event, byte for byte
    assert receiver.received[3].at - receiver.received[1].at >= 0.3
    assert receiver.received[2].at - receiver.received[1].at < 0.3
    rows = WebhookDelivery.objects.order_by("pk")
    assert [(d.status, d.attempts) for d in rows] == [("succeeded", 1), ("succeeded", 2), ("succeeded", 1)]
    assert [a.response_code for a in rows[1].attempt_log.all()] == [500, 200]


def test_an_endpoint_disabled_mid_batch_is_sent_no_more(api, kb, receiver, settings):
    """The first delivery fails for good and disables the endpoint: the rest of the batch is not sent."""
    settings.WEBHOOK_ATTEMPTS, settings.WEBHOOK_DISABLE_AFTER_FAILURES = 1, 1
    register(api, receiver, ["memory.created"])
    receiver.answers = [500]
    emit(api.bot, 4)
    assert run_queued_tasks() == 1
    assert posted(receiver) == [0]
    rows = list(WebhookDelivery.objects.order_by("pk"))
    assert [d.status for d in rows] == ["failed"] * 4
    assert [d.error for d in rows[1:]] == ["the endpoint is disabled"] * 3 and rows[0].attempts == 1
    assert not any(d.leased_until for d in rows)


def test_a_batch_past_its_time_hands_the_rest_on_to_a_task_of_its_own(api, kb, receiver, settings):
    """Its time to begin deliveries spent after the first, a task queues the rest as one task: all are sent, once
    each, in order."""
    settings.JOB_TIMEOUT_SECONDS = 0
    register(api, receiver, ["memory.created"])
    emit(api.bot, 3)
    assert OrmQ.objects.count() == 1
    assert run_queued_tasks() == 3  # 0; then 1 (2 handed on again); then 2
    assert posted(receiver) == [0, 1, 2]
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}


def test_a_batch_that_waited_in_the_queue_is_not_taken_for_lost_by_the_sweep(api, kb, receiver):
    """A batch task that starts long after its emission (a busy queue): while it sends its first delivery the
    minute's sweep queues nothing, for the task marked its deliveries queued when it started; one task sends all
    three, in order, once each."""
    register(api, receiver, ["memory.created"])
    emit(api.bot, 3)
    WebhookDelivery.objects.update(queued_at=timezone.now() - timedelta(minutes=10))
    swept = []

    def sweep(sender, created, **kwargs):  # the sweep runs every minute: here, while the first POST is logged
        if created and not swept:
            swept.append(deliveries_due_queue())

    post_save.connect(sweep, sender=WebhookAttempt, weak=False)
    try:
        assert run_queued_tasks() == 1
    finally:
        post_save.disconnect(sweep, sender=WebhookAttempt)
    assert swept == [0] and OrmQ.objects.count() == 0
    assert posted(receiver) == [0, 1, 2]
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}


def test_the_sweep_queues_one_task_per_endpoint_with_its_due_deliveries_oldest_first(api, kb, receiver):
    """3 deliveries due for one endpoint (their tasks lost) and 2 for another (their retries due), emitted in turn:
    one sweep queues 2 tasks, not 5, each of one endpoint's due deliveries oldest first; each is sent once, signed,
    in the order emitted; one whose retry is not yet due is left for a later sweep."""
    register(api, receiver, ["memory.created"])
    second, server = receiver_start()
    try:
        register(api, second, ["memory.retired"])
        for n in range(3):  # the two endpoints' deliveries interleaved, in the order of their events
            events_emit(bot_id=api.bot.pk, type="memory.created", items=[{"n": n}])
            events_emit(bot_id=api.bot.pk, type="memory.retired", items=[{"n": n}])
        OrmQ.objects.all().delete()
        now = timezone.now()
        created = WebhookDelivery.objects.filter(event_type="memory.created")
        retired = WebhookDelivery.objects.filter(event_type="memory.retired").order_by("pk")
        created.update(queued_at=now - timedelta(minutes=10))  # their tasks were lost
        retired.update(attempts=1, next_attempt_at=now - timedelta(seconds=1), queued_at=now - timedelta(seconds=2))
        later = retired.last()
        retired.filter(pk=later.pk).update(next_attempt_at=now + timedelta(hours=1))

        assert deliveries_due_queue() == 5
        assert OrmQ.objects.count() == 2  # one task per endpoint (one per delivery, 5, before)
        queued = sorted(OrmQ.objects.all(), key=lambda q: q.args()[0][0])
        assert [q.func() for q in queued] == [BATCH_TASK, BATCH_TASK]
        assert [q.args() for q in queued] == [
            (list(created.order_by("pk").values_list("pk", flat=True)),),
            (list(retired.exclude(pk=later.pk).values_list("pk", flat=True)),),
        ]
        assert deliveries_due_queue() == 0  # queued once

        assert run_queued_tasks() == 2
        assert posted(receiver) == [0, 1, 2] and posted(second) == [0, 1]
        assert all(r.signed for r in receiver.received + second.received)
        assert set(created.values_list("status", "attempts")) == {("succeeded", 1)}
        assert set(retired.exclude(pk=later.pk).values_list("status", "attempts")) == {("succeeded", 2)}
        later.refresh_from_db()
        assert later.status == "pending" and later.attempts == 1 and not later.leased_until
    finally:
        server.shutdown()
        server.server_close()


def test_a_one_delivery_task_queued_before_the_upgrade_still_sends_it(api, kb, receiver):
    """A delivery_send task still in the queue from before the sweep queued batches: it sends its delivery once."""
    register(api, receiver, ["memory.created"])
    emit(api.bot, 1)
    OrmQ.objects.all().delete()
    async_task("kbsite.webhooks.tasks.delivery_send", WebhookDelivery.objects.get().pk)
    assert run_queued_tasks() == 1
    assert posted(receiver) == [0]
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
