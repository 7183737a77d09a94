"""Webhook delivery latency: p50 / p95 from an event to its receipt by a real receiver.

The product runs as served (the ASGI web tier, two job workers on the embedded PostgreSQL, database
`kbsite_webhooks_bench`); a receiver on 127.0.0.1 (allowed by WEBHOOK_ALLOW_PRIVATE_HOSTS) verifies each signature.
An event is a memory retired through the API (`memory.retired`); its latency runs from the moment the request is
sent to the moment the receiver has the signed body, so it includes the request itself, the commit, the queue (the
workers look at it every 0.25 s when idle) and the POST. Measured one event at a time (nothing else queued), then
as a burst of events sent back to back (the two workers drain them).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from benchmarks import harness

ONE_AT_A_TIME = 100
BURST = 200


class Receiver:
    """A local HTTP receiver: verifies each delivery's signature, notes when each event id arrived."""

    def __init__(self) -> None:
        self.secret = ""
        self.arrived: dict[str, float] = {}
        self.bad = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                from kbsite.webhooks.signing import signature_verify

                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                at = time.time()
                if signature_verify(receiver.secret, body, self.headers.get("Kbsite-Signature", "")):
                    receiver.arrived.setdefault(self.headers["Kbsite-Event-Id"], at)
                    self.send_response(200)
                else:
                    receiver.bad += 1
                    self.send_response(400)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while len(self.arrived) < count and time.monotonic() < deadline:
            time.sleep(0.002)
        if len(self.arrived) < count:
            raise RuntimeError(f"only {len(self.arrived)} of {count} events arrived; see var/bench-product.log")


def _memories(kb, count: int) -> list[int]:
    from memories.models import Memory

    return [Memory.objects.create(kb=kb, text=f"Benchmark fact number {n}.").pk for n in range(count)]


def _retire(session: requests.Session, url: str, kb: str, memory_id: int) -> float:
    """Retire a memory through the API; returns when the request was sent (epoch seconds)."""
    sent = time.time()
    response = session.post(f"{url}/api/v1/kbs/{kb}/memories/{memory_id}/retire/", json={"reason": "bench"})
    response.raise_for_status()
    return sent


def _event_ids(memory_ids: list[int]) -> dict[int, str]:
    """The event id of each memory's memory.retired delivery."""
    import json

    from kbsite.webhooks.models import WebhookDelivery

    ids = {}
    for body in WebhookDelivery.objects.filter(event_type="memory.retired").values_list("body", flat=True):
        event = json.loads(body)
        ids[event["data"]["memory"]["id"]] = event["id"]
    return {pk: ids[pk] for pk in memory_ids}


def _figures(label: str, sent: dict[int, float], receiver: Receiver, requests_ms: list[float]) -> None:
    events = _event_ids(list(sent))
    latencies = sorted((receiver.arrived[events[pk]] - at) * 1000 for pk, at in sent.items())
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"{label}: {len(latencies)} events, event to receipt p50 {statistics.median(latencies):.0f} ms, "
        f"p95 {p95:.0f} ms, max {latencies[-1]:.0f} ms; the API request that caused each: "
        f"p50 {statistics.median(requests_ms):.0f} ms",
        flush=True,
    )


def run() -> None:
    os.environ["WEBHOOK_ALLOW_PRIVATE_HOSTS"] = "127.0.0.1"
    env = harness.configure(db_name="kbsite_webhooks_bench", workers=2)
    env["WEBHOOK_ALLOW_PRIVATE_HOSTS"] = "127.0.0.1"
    harness.reset_database()
    from kbsite.models import Bot, KnowledgeBase

    key = harness.make_bot("webhooks")  # its rate limit raised: the burst measures the workers, not the limiter
    kb = KnowledgeBase.objects.create(bot=Bot.objects.get(name="webhooks"), name="bench")
    receiver = Receiver()
    product = harness.Product(env, web_workers=1)
    try:
        harness.warm_up_workers(2)
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {key}"
        made = session.post(f"{product.url}/api/v1/webhooks/", json={"url": receiver.url, "events": ["memory.retired"]})
        made.raise_for_status()
        receiver.secret = made.json()["secret"]
        memories = _memories(kb, ONE_AT_A_TIME + BURST)

        sent, took = {}, []
        for pk in memories[:ONE_AT_A_TIME]:
            sent[pk] = _retire(session, product.url, kb.name, pk)
            took.append((time.time() - sent[pk]) * 1000)
            receiver.wait(len(sent))
        _figures("one at a time", sent, receiver, took)

        burst, took = {}, []
        for pk in memories[ONE_AT_A_TIME:]:
            burst[pk] = _retire(session, product.url, kb.name, pk)
            took.append((time.time() - burst[pk]) * 1000)
        receiver.wait(len(sent) + len(burst))
        _figures(f"a burst of {BURST} back to back", burst, receiver, took)
        print(f"signatures refused by the receiver: {receiver.bad}", flush=True)
    finally:
        product.stop()
        receiver.server.shutdown()
