"""Webhook deliveries against a real local receiver: signed as Stripe signs (the receiver checks), retried with
backoff after its 500s, logged attempt by attempt, given up and the endpoint disabled when it keeps failing, never
sent during the request that caused them, redelivered."""

from __future__ import annotations

import time

from kbsite.webhooks.models import WebhookDelivery, WebhookEndpoint
from kbsite.webhooks.services import deliveries_due_queue, delivery_redeliver
from tests.conftest import run_queued_tasks
from tests.factories import MemoryFactory
from tests.kbsite.webhooks.conftest import register


def retire(api, kb, text: str = "The launch code is 1234.") -> int:
    memory = MemoryFactory(kb=kb, text=text)
    response = api.post(f"/api/v1/kbs/notes/memories/{memory.pk}/retire/", json={"reason": "wrong"})
    assert response.status_code == 200, response.text
    return memory.pk


def test_a_receiver_verifies_the_signature_and_sees_the_retries_after_its_500s(api, kb, receiver):
    """500, 500, then 200: the receiver gets the same signed event three times; the log shows the three attempts."""
    endpoint = register(api, receiver, ["memory.retired"])
    receiver.answers = [500, 500]
    memory_id = retire(api, kb)
    assert receiver.received == []  # the request that caused it did not wait for it: a job sends it
    assert run_queued_tasks() == 1
    assert len(receiver.received) == 3 and all(r.signed for r in receiver.received)
    assert len({r.body for r in receiver.received}) == 1  # the same event, byte for byte
    event = receiver.received[0].event
    assert set(event) == {"id", "type", "created", "data"} and event["type"] == "memory.retired"
    assert event["id"].startswith("evt_") and abs(event["created"] - time.time()) < 60
    assert event["data"]["kb"] == "notes" and event["data"]["memory"]["id"] == memory_id
    assert receiver.received[0].headers["Kbsite-Event-Id"] == event["id"]

    (delivery,) = api.get(f"/api/v1/webhooks/{endpoint['id']}/deliveries/").json()["results"]
    assert delivery["status"] == "succeeded" and delivery["attempts"] == 3 and delivery["response_code"] == 200
    assert [a["response_code"] for a in delivery["attempt_log"]] == [500, 500, 200]
    assert delivery["event_id"] == event["id"] and delivery["delivered_at"]


def test_the_signature_fails_with_another_secret_and_after_rotation(api, kb, receiver):
    """The receiver refuses what another secret signed; after a rotation, the new secret signs."""
    endpoint = register(api, receiver, ["memory.retired"])
    receiver.secret = "whsec_not-the-one"
    retire(api, kb)
    run_queued_tasks()
    assert receiver.received and not any(r.signed for r in receiver.received)  # answered 400 each time

    rotated = api.post(f"/api/v1/webhooks/{endpoint['id']}/rotate-secret/").json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != endpoint["secret"]
    receiver.secret, receiver.received = rotated["secret"], []
    retire(api, kb, "The door code is 4321.")
    run_queued_tasks()
    assert len(receiver.received) == 1 and receiver.received[0].signed


def test_longer_waits_are_left_to_the_sweep_which_queues_them_when_due(api, kb, receiver, settings):
    """A wait longer than a worker waits ends the task; the jobs' sweep queues the delivery once it is due."""
    settings.WEBHOOK_RETRY_INLINE_SECONDS = 0
    register(api, receiver, ["memory.retired"])
    receiver.answers = [503]
    retire(api, kb)
    run_queued_tasks()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1 and delivery.next_attempt_at
    time.sleep(0.05)
    assert deliveries_due_queue() == 1
    assert deliveries_due_queue() == 0  # queued once
    run_queued_tasks()
    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.attempts == 2 and len(receiver.received) == 2


def test_a_failing_endpoint_gives_up_then_is_disabled_and_shown_so(api, kb, receiver, settings):
    """Every attempt refused: the delivery fails after WEBHOOK_ATTEMPTS; after WEBHOOK_DISABLE_AFTER_FAILURES such
    deliveries in a row the endpoint is disabled, with the reason, and nothing more is sent to it."""
    settings.WEBHOOK_ATTEMPTS, settings.WEBHOOK_DISABLE_AFTER_FAILURES = 3, 2
    endpoint = register(api, receiver, ["memory.retired"])
    receiver.answers = [500] * 6
    retire(api, kb, "One.")
    retire(api, kb, "Two.")
    run_queued_tasks()
    assert len(receiver.received) == 6
    assert list(WebhookDelivery.objects.values_list("status", "attempts")) == [("failed", 3), ("failed", 3)]
    shown = api.get(f"/api/v1/webhooks/{endpoint['id']}/").json()
    assert shown["is_active"] is False and "2 deliveries failed in a row" in shown["disabled_reason"]
    assert shown["consecutive_failures"] == 2 and shown["secret"] is None

    retire(api, kb, "Three.")
    assert run_queued_tasks() == 0 and len(receiver.received) == 6  # a disabled endpoint is sent nothing

    enabled = api.patch(f"/api/v1/webhooks/{endpoint['id']}/", json={"is_active": True}).json()
    assert enabled["is_active"] is True and enabled["disabled_reason"] == "" and enabled["consecutive_failures"] == 0
    (failed, *_) = WebhookDelivery.objects.order_by("pk")
    again = delivery_redeliver(delivery=failed)
    run_queued_tasks()
    again.refresh_from_db()
    assert again.status == "succeeded" and again.event_id == failed.event_id and again.redelivery_of == failed
    assert receiver.received[-1].body == receiver.received[0].body and receiver.received[-1].signed


def test_a_change_rolled_back_and_a_bot_without_endpoints_send_nothing(api, kb, receiver):
    """No endpoint listening: no delivery row; an endpoint of another event type: none either."""
    retire(api, kb)
    assert WebhookDelivery.objects.count() == 0
    register(api, receiver, ["memory.created"])
    retire(api, kb, "Something else.")
    assert WebhookDelivery.objects.count() == 0 and run_queued_tasks() == 0


def test_an_address_allowed_at_registration_is_checked_again_at_delivery(api, kb, receiver, settings):
    """Registered while 127.0.0.1 was allowed, refused once it is not (as a name that resolves elsewhere since,
    DNS rebinding): nothing reaches the receiver, the attempt says why."""
    settings.WEBHOOK_ATTEMPTS = 1
    register(api, receiver, ["memory.retired"])
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS = []
    retire(api, kb)
    run_queued_tasks()
    assert receiver.received == []
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and delivery.response_code is None
    assert "refused" in delivery.error and "private" in delivery.error
    assert WebhookEndpoint.objects.get().consecutive_failures == 1
