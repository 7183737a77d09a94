"""A real webhook receiver: an HTTP server in a thread of the test that verifies each delivery's signature with the
endpoint's secret, answers the status codes it is told to, and keeps what it received."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kbsite.webhooks.signing import signature_verify


@dataclass
class Received:
    """One POST as the receiver saw it: the raw body, its headers, and whether the signature held."""

    body: bytes
    headers: dict
    signed: bool
    at: float

    @property
    def event(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """The receiver's address, the secret it checks with, the answers it gives in turn (then 200), what it got."""

    url: str
    secret: str = ""
    answers: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)

    def types(self) -> list[str]:
        return [r.event["type"] for r in self.received]

    def wait(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.received) >= count, f"received {len(self.received)} of {count}"


def receiver_start(path: str = "/hook") -> tuple[Receiver, ThreadingHTTPServer]:
    receiver = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            signed = signature_verify(receiver.secret, body, self.headers.get("Kbsite-Signature", ""))
            receiver.received.append(Received(body, dict(self.headers), signed, time.time()))
            status = receiver.answers.pop(0) if receiver.answers else 200
            self.send_response(status if signed else 400)
            self.end_headers()
            self.wfile.write(b"ok" if signed else b"bad signature")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver, server


@pytest.fixture
def receiver(settings):
    """A receiver on 127.0.0.1, which the test's settings allow webhooks to reach; retries come fast."""
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_RETRY_SECONDS = 0.01
    receiver, server = receiver_start()
    yield receiver
    server.shutdown()
    server.server_close()


def register(api, receiver: Receiver, events: list[str]) -> dict:
    """Register ``receiver`` for ``events`` through the API; it checks with the secret answered."""
    response = api.post("/api/v1/webhooks/", json={"url": receiver.url, "events": events})
    assert response.status_code == 201, response.text
    receiver.secret = response.json()["secret"]
    return response.json()
