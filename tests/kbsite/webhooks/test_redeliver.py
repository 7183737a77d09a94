"""Redelivering through the API: one delivery of the bot's own endpoint sent again to a real local receiver, the same
event signed afresh and logged as a new attempt; another bot's key finds nothing, a read-only key or an end user's
key is refused, a disabled endpoint is a 409 that says what to do."""

from __future__ import annotations

import time

import pytest

from kbsite.keys import key_issue
from kbsite.models import EndUser
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from tests.conftest import ApiClient, run_queued_tasks
from tests.kbsite.webhooks.conftest import register
from tests.kbsite.webhooks.test_delivery import retire


def redeliver_path(endpoint_id: int, delivery_id: int) -> str:
    return f"/api/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver/"


def stamp(received) -> int:
    """The ``t`` of the signature a receiver got."""
    fields = dict(part.split("=", 1) for part in received.headers["Kbsite-Signature"].split(","))
    return int(fields["t"])


@pytest.fixture
def logged(bot) -> WebhookDelivery:
    """A failed delivery of one of the bot's endpoints, with its one attempt in the log."""
    endpoint = WebhookEndpoint.objects.create(bot=bot, url="https://93.184.216.34/hook", events=["job.failed"])
    delivery = WebhookDelivery.objects.create(
        bot=bot, endpoint=endpoint, event_id="evt_1", event_type="job.failed", body='{"id": "evt_1"}'
    )
    WebhookAttempt.objects.create(delivery=delivery, number=1, started_at=delivery.created_at, response_code=500)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed", attempts=1, response_code=500)
    return delivery


def test_a_delivery_is_redelivered_the_same_event_signed_afresh_and_logged_as_a_new_attempt(
    api, kb, receiver, settings
):
    """A failed delivery, the secret rotated since: POST …/redeliver/ answers 202 with a new delivery of the same
    event id; the receiver gets the same body byte for byte, signed when sent with the secret of now; the log shows
    the new attempt on the new delivery, the first one's untouched."""
    settings.WEBHOOK_ATTEMPTS = 1
    endpoint = register(api, receiver, ["memory.retired"])
    receiver.answers = [503]
    retire(api, kb)
    run_queued_tasks()
    first = WebhookDelivery.objects.get()
    assert first.status == "failed" and len(receiver.received) == 1

    rotated = api.post(f"/api/v1/webhooks/{endpoint['id']}/rotate-secret/").json()["secret"]
    receiver.secret = rotated  # the first POST was signed with the old secret: only a fresh signature passes now
    time.sleep(1.1)  # a second later: a signature made at send time has a later t than the first one's
    answer = api.post(redeliver_path(endpoint["id"], first.pk))
    assert answer.status_code == 202, answer.text
    queued = answer.json()
    assert queued["id"] != first.pk and queued["event_id"] == first.event_id
    assert queued["status"] == "pending" and queued["redelivery_of"] == first.pk and queued["attempt_log"] == []
    assert len(receiver.received) == 1  # queued for a worker, not sent in the request

    assert run_queued_tasks() == 1
    original, again = receiver.received
    assert again.signed and again.body == original.body
    assert again.headers["Kbsite-Event-Id"] == original.headers["Kbsite-Event-Id"] == first.event_id
    assert stamp(again) > stamp(original)

    newest, oldest = api.get(f"/api/v1/webhooks/{endpoint['id']}/deliveries/").json()["results"]
    assert newest["id"] == queued["id"] and newest["status"] == "succeeded"
    assert [(a["number"], a["response_code"]) for a in newest["attempt_log"]] == [(1, 200)]
    assert oldest["id"] == first.pk and oldest["status"] == "failed"
    assert [(a["number"], a["response_code"]) for a in oldest["attempt_log"]] == [(1, 503)]


def test_another_bots_key_gets_a_404_and_sends_nothing(logged, api, other_api):
    """Another bot's key: a 404 for the first bot's endpoint, and for the first bot's delivery under an endpoint
    of its own; no delivery is made. The same request with the first bot's key is a 202 (the 404 is the scope's)."""
    assert other_api.post(redeliver_path(logged.endpoint_id, logged.pk)).status_code == 404
    own = WebhookEndpoint.objects.create(bot=other_api.bot, url="https://93.184.216.34/own", events=["job.failed"])
    assert other_api.post(redeliver_path(own.pk, logged.pk)).status_code == 404
    assert WebhookDelivery.objects.count() == 1
    assert api.post(redeliver_path(logged.endpoint_id, logged.pk)).status_code == 202
    assert WebhookDelivery.objects.count() == 2


def test_a_read_only_key_and_an_end_users_key_are_refused(logged, api, bot):
    """Redelivering writes: a read-only key gets the 403 of every write, a key of one end user the 403 of every
    route not theirs; no delivery is made."""
    reader = ApiClient(base_url=api.base_url, key=key_issue(bot, name="reader", read_only=True)[1], bot=bot)
    refused = reader.post(redeliver_path(logged.endpoint_id, logged.pk))
    assert refused.status_code == 403 and "reads only" in refused.json()["detail"]

    alice = EndUser.objects.seen(bot, "alice")
    alices = ApiClient(base_url=api.base_url, key=key_issue(bot, name="app", end_user=alice)[1], bot=bot)
    refused = alices.post(redeliver_path(logged.endpoint_id, logged.pk))
    assert refused.status_code == 403 and "This key is end user 'alice'" in refused.json()["detail"]
    assert WebhookDelivery.objects.count() == 1 and run_queued_tasks() == 0


def test_a_disabled_endpoint_is_a_409_and_an_unknown_delivery_a_404(logged, api):
    """While the endpoint is disabled the answer says to enable it first; a delivery id not of this endpoint is a
    404; neither makes a delivery."""
    WebhookEndpoint.objects.filter(pk=logged.endpoint_id).update(is_active=False)
    refused = api.post(redeliver_path(logged.endpoint_id, logged.pk))
    assert refused.status_code == 409 and "enable it first" in refused.json()["detail"]
    assert api.post(redeliver_path(logged.endpoint_id, logged.pk + 1000)).status_code == 404
    assert WebhookDelivery.objects.count() == 1 and run_queued_tasks() == 0


def test_the_api_says_a_null_redelivery_of_is_a_first_delivery_or_one_whose_first_was_pruned(anon):
    """The schema's redelivery_of: null is a first delivery, or a redelivery whose first the prune deleted (it
    keeps the redelivery and clears its link), not the first alone."""
    schema = anon.get("/api/schema/", headers={"Accept": "application/json"}).json()
    field = schema["components"]["schemas"]["WebhookDelivery"]["properties"]["redelivery_of"]
    assert field.get("nullable") and "pruned" in field["description"]
