"""The ASGI server as ``manage.py serve`` runs it: the API, the admin and static files through Django's sync handler
in a thread of their own (kbsite.serving.SyncViews), each request ending as under WSGI, every answer whole on
keep-alive and pipelined connections."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket

import requests
from asgiref.sync import AsyncToSync, SyncToAsync
from django.contrib.staticfiles import finders
from django.core.signals import request_finished

from kbsite.serving import StreamedBody, SyncViews
from memories.models import Memory
from tests.conftest import wait_for
from tests.factories import MemoryFactory


def test_the_api_answers_through_the_asgi_server(asgi_api, kb):
    """Posts, reads, errors in JSON and query strings in any script come through whole."""
    posted = asgi_api.post(
        "/api/v1/kbs/notes/messages/",
        json={"session_id": "s-1", "user_id": "ann", "messages": [{"external_id": "t1", "content": "Ann likes tea."}]},
    )
    assert posted.status_code == 202 and posted.json()["accepted"] == 1
    MemoryFactory(kb=kb, text="Jürgen lives in Pitié.")
    listed = asgi_api.get("/api/v1/kbs/notes/memories/", params={"q": "Jürgen"})
    assert listed.status_code == 200 and [m["text"] for m in listed.json()["results"]] == ["Jürgen lives in Pitié."]
    malformed = asgi_api.post(
        "/api/v1/kbs/notes/recall/", data=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert malformed.status_code == 400 and "JSON" in malformed.json()["detail"]
    oversized = asgi_api.post(
        "/api/v1/kbs/notes/recall/", data=b"x" * 3_000_000, headers={"Content-Type": "application/json"}
    )
    assert oversized.status_code == 413 and "limit" in oversized.json()["detail"]
    assert asgi_api.get("/api/v1/kbs/nothing-here/").status_code == 404
    assert asgi_api.request("HEAD", "/api/v1/kbs/notes/").status_code == 200


def test_a_streamed_export_comes_whole(asgi_api, kb):
    """A streamed response (the KB's JSON Lines export) is sent chunk by chunk, every line of it."""
    for n in range(30):
        MemoryFactory(kb=kb, text=f"Fact number {n} about the garden.")
    response = asgi_api.get("/api/v1/kbs/notes/export/")
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert sum(1 for line in lines if line["type"] == "memory") == Memory.objects.filter(kb=kb).count() == 30


def test_the_admin_and_static_files_are_served(asgi_server):
    login = requests.get(f"{asgi_server.url}/admin/login/", timeout=10)
    assert login.status_code == 200 and "csrfmiddlewaretoken" in login.text
    css = requests.get(f"{asgi_server.url}/static/admin/css/base.css", timeout=10)
    assert css.status_code == 200 and "body" in css.text


def test_each_request_ends_as_under_wsgi(asgi_api, kb):
    """Every request sends request_finished (which hands its database connection back), a streamed one too."""
    finished = []

    def count(**kwargs):
        finished.append(1)

    request_finished.connect(count)
    try:
        for _ in range(5):
            assert asgi_api.get("/api/v1/kbs/notes/").status_code == 200
        assert asgi_api.get("/api/v1/kbs/notes/export/").status_code == 200
        # A streamed response is closed (and its request finished) once its last byte is out: the client may have
        # it all a moment before.
        wait_for(lambda: len(finished) == 6, 5, "every request to finish")
    finally:
        request_finished.disconnect(count)
    assert len(finished) == 6


# A static file streamed in several pieces (1.4 MB), one in a single piece, a plain page, the API's health check.
SWAGGER = "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"
ACTIONS = "/static/admin/js/actions.js"


def static_bytes(path: str) -> bytes:
    """The file on disk that ``path`` (under /static/) serves."""
    with open(finders.find(path.removeprefix("/static/")), "rb") as file:
        return file.read()


class _KeepOpen:
    """A socket's reader that http.client's responses share: each closes it once read, which would lose the answers
    buffered after its own."""

    def __init__(self, reader) -> None:
        self.reader = reader

    def __getattr__(self, name):
        return getattr(self.reader, name)

    def close(self) -> None:
        pass


class _Socket:
    def __init__(self, reader) -> None:
        self.reader = reader

    def makefile(self, *args, **kwargs):
        return self.reader


def pipelined(url: str, paths: list[str]) -> list[tuple[int, bytes]]:
    """The status and body of each of ``paths``, asked for all at once on one connection (HTTP/1.1 pipelining),
    answered in order."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"".join(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() for path in paths))
        reader = _KeepOpen(sock.makefile("rb"))
        answers = []
        for _ in paths:
            response = http.client.HTTPResponse(_Socket(reader), method="GET")
            response.begin()
            answers.append((response.status, response.read()))
        return answers


def test_pipelined_requests_after_static_files_are_all_answered(asgi_server):
    """Requests that arrive while a static file is still being sent are each answered whole: uvicorn starts them
    from inside the send that completes the file (issue 31: 500 "CurrentThreadExecutor already quit")."""
    paths = [ACTIONS, "/api/health/", SWAGGER, "/admin/login/", ACTIONS, "/api/docs/", SWAGGER, ACTIONS] * 3
    answers = pipelined(asgi_server.url, paths)
    assert [status for status, _ in answers] == [200] * len(paths)
    for path, (_, body) in zip(paths, answers, strict=True):
        if path.startswith("/static/"):
            assert body == static_bytes(path)
    assert json.loads(answers[1][1])["status"] == "ok"


def _scope(path: str) -> dict:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


async def _request(views: SyncViews, path: str) -> tuple[list[dict], list[tuple]]:
    """The messages ``views`` sends for ``path``, and what the context held when it sent the last one: the executor
    of a thread waiting in AsyncToSync, and the thread-sensitive context of a request."""
    sent, at_the_end = [], []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            executor = getattr(AsyncToSync.executors, "current", None)
            at_the_end.append((executor, SyncToAsync.thread_sensitive_context.get(None)))

    await views(_scope(path), receive, send)
    return sent, at_the_end


def test_a_response_is_completed_from_a_context_of_no_request_thread(transactional_db):
    """The last message of each response (which may start the next request on the connection, in the sender's
    context) is sent from a context that holds no request's thread, for a streamed file, a small one and a page."""
    views = SyncViews()
    for path in (SWAGGER, ACTIONS, "/api/health/"):
        sent, at_the_end = asyncio.run(_request(views, path))
        assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
        assert at_the_end == [(None, None)], path
        body = b"".join(message.get("body", b"") for message in sent[1:])
        if path.startswith("/static/"):
            assert body == static_bytes(path)
    pieces = sum(1 for message in asyncio.run(_request(views, SWAGGER))[0] if message.get("body"))
    assert pieces == -(-len(static_bytes(SWAGGER)) // StreamedBody.PIECE)  # 64 KiB a piece, not a 4 KiB chunk a hop
