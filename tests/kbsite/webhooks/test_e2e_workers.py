"""End to end: the real `manage.py qcluster` delivers webhooks to a real receiver, retrying after its 500s, while
the API answers over real HTTP without waiting for it."""

from __future__ import annotations

import time

import pytest

from tests.factories import MemoryFactory
from tests.kbsite.webhooks.conftest import register

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("qcluster_env", [{"WEBHOOK_ALLOW_PRIVATE_HOSTS": "127.0.0.1", "WEBHOOK_RETRY_SECONDS": "0.2"}])
def test_the_workers_deliver_and_retry_after_the_receivers_500s(api, kb, receiver, qcluster):
    """500, 500, 200: the receiver sees three signed posts of one event, the backoff between them, and the log the
    three attempts; the request that caused it answered before any of them."""
    endpoint = register(api, receiver, ["memory.retired"])
    receiver.answers = [500, 500]
    memory = MemoryFactory(kb=kb, text="The launch code is 1234.")
    assert api.post(f"/api/v1/kbs/notes/memories/{memory.pk}/retire/", json={"reason": "wrong"}).ok
    answered = time.time()
    receiver.wait(3, timeout=120)
    assert all(r.signed for r in receiver.received) and len({r.body for r in receiver.received}) == 1
    first, second, third = (r.at for r in receiver.received)
    assert answered <= first and second - first >= 0.2 and third - second >= 0.8  # 0.2 s, then 0.8 s
    assert receiver.received[0].event["data"]["memory"]["id"] == memory.pk

    def logged():
        return api.get(f"/api/v1/webhooks/{endpoint['id']}/deliveries/").json()["results"]

    deadline = time.monotonic() + 30
    while logged()[0]["status"] != "succeeded" and time.monotonic() < deadline:
        time.sleep(0.2)
    (delivery,) = logged()
    assert delivery["status"] == "succeeded"
    assert [attempt["response_code"] for attempt in delivery["attempt_log"]] == [500, 500, 200]
