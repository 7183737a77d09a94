"""Webhook workflows: events emitted, deliveries attempted and retried with backoff, due retries queued, redelivery,
old finished deliveries pruned.

:func:`event_emit` is the one way an event goes out: in the transaction of the change it records a delivery for
each active endpoint of the bot subscribed to its type, and queues one task per endpoint when that commits (a
rolled-back change sends nothing; no request waits for a receiver). The task runs :func:`deliveries_run`: the
events of one emission (the memories of one extraction, say) go to an endpoint one POST each, in order, from one
task, each retried on its own. The minute's sweep (:func:`deliveries_due_queue`) likewise queues one task per
endpoint for the deliveries it finds due, oldest first.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from kbsite.jobs import task_enqueue
from kbsite.webhooks.delivery import post_signed
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint

logger = logging.getLogger(__name__)

BATCH_TASK = "kbsite.webhooks.tasks.deliveries_send"
# A queued task that has not run after this long is taken as lost, and queued again by the sweep.
REQUEUE_AFTER = timedelta(minutes=5)


def listening(*, bot_ids: set[int], type: str) -> set[int]:
    """Those of ``bot_ids`` with an active endpoint subscribed to ``type`` (before building an event's data)."""
    endpoints = WebhookEndpoint.objects.filter(bot_id__in=bot_ids, is_active=True, events__contains=[type])
    return set(endpoints.values_list("bot_id", flat=True).distinct())


def event_emit(*, bot_id: int, type: str, data: dict) -> int:
    """Emit one event of ``type`` for bot ``bot_id``. Returns how many deliveries it made."""
    return events_emit(bot_id=bot_id, type=type, items=[data])


def events_emit(*, bot_id: int, type: str, items: list[dict]) -> int:
    """Emit an event of ``type`` for each of ``items`` (its ``data``), for bot ``bot_id``: a delivery for each
    endpoint subscribed, one task per endpoint queued on commit (it sends them in order). One query when no endpoint
    listens. Returns the deliveries made."""
    if not items:
        return 0
    endpoints = list(WebhookEndpoint.objects.filter(bot_id=bot_id, is_active=True, events__contains=[type]))
    if not endpoints:
        return 0
    now = timezone.now()
    events = [_event(type, data, now) for data in items]
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            bot_id=bot_id,
            endpoint=endpoint,
            event_id=event_id,
            event_type=type,
            body=body,
            next_attempt_at=now,
            queued_at=now,
        )
        for endpoint in endpoints
        for event_id, body in events
    )
    # bulk_create keeps the order: each endpoint's in the order of ``items``.
    _queue_by_endpoint([(delivery.pk, delivery.endpoint_id) for delivery in deliveries])
    return len(deliveries)


def _queue_by_endpoint(rows: list[tuple[int, int]]) -> None:
    """Queue one batch task per endpoint for ``rows`` (delivery id, endpoint id), each endpoint's in their order."""
    batches: dict[int, list[int]] = defaultdict(list)
    for pk, endpoint_id in rows:
        batches[endpoint_id].append(pk)
    for ids in batches.values():
        task_enqueue(BATCH_TASK, ids)


def _event(type: str, data: dict, now) -> tuple[str, str]:
    """(id, JSON body) of one event."""
    event_id = f"evt_{secrets.token_hex(12)}"
    body = {"id": event_id, "type": type, "created": int(now.timestamp()), "data": data}
    return event_id, json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False)


# --- Delivering -----------------------------------------------------------------------------------------------


def retry_delay(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt: WEBHOOK_RETRY_SECONDS, times 4 each time after,
    at most WEBHOOK_RETRY_MAX_SECONDS (1 s, 4 s, 16 s, 64 s, 256 s by default)."""
    return min(settings.WEBHOOK_RETRY_SECONDS * 4 ** (attempts - 1), settings.WEBHOOK_RETRY_MAX_SECONDS)


def delivery_run(*, delivery_id: int) -> str | None:
    """Attempt delivery ``delivery_id`` (the one-delivery task that the sweep and a redelivery queued before they
    queued batches, still in a queue after an upgrade): see :func:`deliveries_run`. Returns its status then, or None
    when it is not this task's to attempt (done, or another task holds it)."""
    return deliveries_run(delivery_ids=[delivery_id]).get(delivery_id)


def deliveries_run(*, delivery_ids: list[int]) -> dict[int, str | None]:
    """Attempt deliveries ``delivery_ids`` (one endpoint's, in order), one POST each. Each is attempted until it
    succeeds, its attempts are spent, or its next wait is longer than a worker waits (WEBHOOK_RETRY_INLINE_SECONDS):
    the minute's sweep queues it again when it is due. One waiting for its retry holds up none of the others (the
    next is sent meanwhile); once the endpoint is disabled, none is sent. Those not begun after
    :func:`_batch_seconds` go to a task of their own. Returns each one's status (None: not this task's)."""
    todo, waiting, leased, statuses = list(delivery_ids), [], [], {}
    deadline = time.monotonic() + _batch_seconds()
    _mark_queued(todo)  # the task may have waited in the queue: the sweep counts from its start, not its emission
    try:
        while todo or waiting:
            due = next((d for d in waiting if d.next_attempt_at <= timezone.now()), None)
            if due is not None:
                waiting.remove(due)
                statuses[due.pk] = _retry(due, waiting)
            elif todo and (not statuses or time.monotonic() < deadline):
                delivery = _lease(todo[0])
                leased += [delivery] if delivery else []
                statuses[todo.pop(0)] = None if delivery is None else _step(delivery, waiting)
            elif todo:
                _hand_on(todo)
                todo = []
            else:
                time.sleep(max(0.0, (min(d.next_attempt_at for d in waiting) - timezone.now()).total_seconds()))
    except BaseException:  # a bug, the task's time limit: let go of what it held (each is released as it leaves)
        for delivery in leased:
            _release(delivery)
        raise
    return statuses


def _batch_seconds() -> float:
    """How long a task begins deliveries of its batch: well within its time limit, and before the sweep would take
    the ones not begun for lost (REQUEUE_AFTER)."""
    return min(settings.JOB_TIMEOUT_SECONDS, REQUEUE_AFTER.total_seconds()) / 2


def _mark_queued(ids: list[int]) -> None:
    """Mark the pending ones of ``ids`` queued now: a task runs or is queued for them, and the sweep does not take
    them for lost until REQUEUE_AFTER from now. A batch task marks its own when it starts, for its time to begin
    them (:func:`_batch_seconds`) counts from then, however long it waited in the queue."""
    WebhookDelivery.objects.filter(pk__in=ids, status=WebhookDelivery.Status.PENDING).update(queued_at=timezone.now())


def _hand_on(ids: list[int]) -> None:
    """Queue the rest of a batch as a task of its own, marked queued now (the sweep does not take it for lost)."""
    _mark_queued(ids)
    task_enqueue(BATCH_TASK, ids)


def _step(delivery: WebhookDelivery, waiting: list[WebhookDelivery]) -> str:
    """One attempt of a delivery this task holds (none when its endpoint is disabled). Finished, or left to the
    sweep, it is released; else it joins ``waiting`` (held) until its next attempt is due."""
    if not delivery.endpoint.is_active:
        _finish(delivery, WebhookDelivery.Status.FAILED, error="the endpoint is disabled")
    elif not _attempt(delivery) and retry_delay(delivery.attempts) <= settings.WEBHOOK_RETRY_INLINE_SECONDS:
        waiting.append(delivery)
        return delivery.status
    _release(delivery)  # pending with next_attempt_at set: the sweep takes it up
    return delivery.status


def _retry(delivery: WebhookDelivery, waiting: list[WebhookDelivery]) -> str | None:
    """The next attempt of a waiting delivery, its endpoint read again (disabled, its secret rotated, deleted)."""
    try:
        delivery.endpoint.refresh_from_db(fields=["is_active", "secret", "url"])
    except WebhookEndpoint.DoesNotExist:  # deleted while this task waited, its deliveries with it
        return None
    if not _relet(delivery):
        return None
    return _step(delivery, waiting)


def _held() -> timedelta:
    """How long a lease lasts: one delivery's attempts and the waits between them, with room to spare."""
    held = settings.WEBHOOK_ATTEMPTS * (settings.WEBHOOK_TIMEOUT_SECONDS * 2 + settings.WEBHOOK_RETRY_INLINE_SECONDS)
    return timedelta(seconds=held + 60)


def _lease(delivery_id: int) -> WebhookDelivery | None:
    """The pending delivery, now held by this task: no other task attempts it while this one may be at it."""
    now = timezone.now()
    taken = WebhookDelivery.objects.filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=now),
        pk=delivery_id,
        status=WebhookDelivery.Status.PENDING,
    ).update(leased_until=now + _held())
    if not taken:
        return None
    return WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)


def _relet(delivery: WebhookDelivery) -> bool:
    """Hold a delivery this task leased for one more attempt. False when its lease ran out meanwhile (the others
    of its batch took long) and another task took it: that one attempts it."""
    until = timezone.now() + _held()
    kept = WebhookDelivery.objects.filter(
        pk=delivery.pk, leased_until=delivery.leased_until, status=WebhookDelivery.Status.PENDING
    ).update(leased_until=until)
    delivery.leased_until = until
    return bool(kept)


def _release(delivery: WebhookDelivery) -> None:
    WebhookDelivery.objects.filter(pk=delivery.pk, leased_until=delivery.leased_until).update(leased_until=None)


def _attempt(delivery: WebhookDelivery) -> bool:
    """One attempt, logged; the delivery succeeded, failed for good, or waits for the next. Returns whether it is
    finished."""
    endpoint = delivery.endpoint
    started = timezone.now()
    outcome = post_signed(
        url=endpoint.url,
        secret=endpoint.secret,
        body=delivery.body.encode(),
        event_id=delivery.event_id,
        event_type=delivery.event_type,
    )
    delivery.attempts += 1
    try:
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=delivery.attempts,
            started_at=started,
            duration_ms=outcome.duration_ms,
            response_code=outcome.response_code,
            response_body=outcome.response_body,
            error=outcome.error,
        )
    except IntegrityError:  # the endpoint was deleted meanwhile, and its deliveries with it: nothing is left to do
        return True
    delivery.response_code, delivery.error = outcome.response_code, outcome.error
    if outcome.succeeded:
        _finish(delivery, WebhookDelivery.Status.SUCCEEDED)
        endpoint.delivery_succeeded()
        return True
    if delivery.attempts >= settings.WEBHOOK_ATTEMPTS:
        _finish(delivery, WebhookDelivery.Status.FAILED, error=f"{outcome.error} (gave up after {delivery.attempts})")
        if endpoint.delivery_failed():
            logger.warning("webhook endpoint %s disabled: %s", endpoint.pk, endpoint.disabled_reason)
        return True
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=retry_delay(delivery.attempts))
    delivery.save(update_fields=["attempts", "response_code", "error", "next_attempt_at"])
    return False


def _finish(delivery: WebhookDelivery, status: str, *, error: str | None = None) -> None:
    delivery.status, delivery.next_attempt_at = status, None
    if error is not None:
        delivery.error = error[:500]
    if status == WebhookDelivery.Status.SUCCEEDED:
        delivery.delivered_at = timezone.now()
    delivery.save(update_fields=["status", "attempts", "response_code", "error", "next_attempt_at", "delivered_at"])


def deliveries_due_queue() -> int:
    """Queue the pending deliveries that are due and that no task holds or is queued for (or whose task was queued
    long ago, and lost): one task per endpoint, its deliveries oldest first, as an emission's are (a failing one is
    retried alone, one disabling the endpoint stops the rest). Runs with the jobs' sweep, every minute. Returns how
    many deliveries it queued."""
    now = timezone.now()
    due = WebhookDelivery.objects.filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=now),
        # Queued before this attempt was due: that task was for an earlier attempt, and has run.
        Q(queued_at__isnull=True) | Q(queued_at__lt=now - REQUEUE_AFTER) | Q(queued_at__lt=F("next_attempt_at")),
        status=WebhookDelivery.Status.PENDING,
        next_attempt_at__lte=now,
    )
    # Oldest first: each endpoint's are sent in the order their events happened, and the oldest are not left behind
    # the 1000 of a sweep.
    rows = list(due.order_by("created_at", "pk").values_list("pk", "endpoint_id")[:1000])
    _mark_queued([pk for pk, _ in rows])
    _queue_by_endpoint(rows)
    return len(rows)


def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery | None:
    """Send a delivery's event again to its endpoint, as a new delivery (same event id and body, attempts anew).
    None when the endpoint is disabled (enable it first)."""
    if not delivery.endpoint.is_active:
        return None
    now = timezone.now()
    with transaction.atomic():
        again = WebhookDelivery.objects.create(
            bot_id=delivery.bot_id,
            endpoint_id=delivery.endpoint_id,
            event_id=delivery.event_id,
            event_type=delivery.event_type,
            body=delivery.body,
            next_attempt_at=now,
            queued_at=now,
            redelivery_of=delivery,
        )
        task_enqueue(BATCH_TASK, [again.pk])
    return again


# Deliveries deleted per statement by the prune: each batch is a short transaction of its own.
PRUNE_BATCH = 1000
FINISHED = [WebhookDelivery.Status.SUCCEEDED, WebhookDelivery.Status.FAILED]


def deliveries_prune(*, days: int | None = None, batch: int = PRUNE_BATCH) -> int:
    """Delete the finished deliveries (succeeded, or failed for good) made more than ``days`` ago
    (WEBHOOK_DELIVERY_RETENTION_DAYS by default), their attempts with them, ``batch`` at a time. A pending one is
    never deleted, however old. Safe to run twice, or twice at once. Returns how many deliveries it deleted."""
    cutoff = timezone.now() - timedelta(days=settings.WEBHOOK_DELIVERY_RETENTION_DAYS if days is None else days)
    # Oldest first, which the partial index webhook_delivery_finished gives a batch at a time (the default order,
    # newest first, made each batch a scan of the whole log).
    old = WebhookDelivery.objects.filter(status__in=FINISHED, created_at__lt=cutoff).order_by("created_at")
    deleted = 0
    while ids := list(old.values_list("pk", flat=True)[:batch]):
        with transaction.atomic():
            _, counts = WebhookDelivery.objects.filter(pk__in=ids, status__in=FINISHED).delete()
        deleted += counts.get(WebhookDelivery._meta.label, 0)
    return deleted
