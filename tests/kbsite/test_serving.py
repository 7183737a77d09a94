"""The ASGI server as ``manage.py serve`` runs it: the API, the admin and static files through Django's sync handler
in a thread of their own (kbsite.serving.SyncViews), each request ending as under WSGI, every answer whole on
keep-alive and pipelined connections."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter

import pytest
import requests
from asgiref.sync import AsyncToSync, SyncToAsync
from django.contrib.staticfiles import finders
from django.core.signals import request_finished

from kbsite.serving import StreamedBody, SyncViews
from memories.models import Memory
from tests.conftest import ROOT, database_url, wait_for
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture
def served(transactional_db, settings, tmp_path):
    """``manage.py serve --no-worker`` with two web processes on the test database: the product as it runs."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}  # the product's own settings
    env.update(
        DATABASE_URL=database_url(),
        KBSITE_VAR_DIR=str(tmp_path / "var"),
        KBSITE_DATA_DIR=str(settings.KBSITE_DATA_DIR),
        LLM_BASE_URL="",
        LLM_MODEL="",
        PYTHONUNBUFFERED="1",
    )
    command = [sys.executable, "manage.py", "serve", "--no-worker", "--web-workers", "2", "--bind"]
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115 - closed below
    serve = subprocess.Popen(
        [*command, f"127.0.0.1:{port}"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: serve.poll() is not None or _answers(f"{url}/api/health/"), 120, "manage.py serve")
        assert serve.poll() is None, "serve stopped"
        yield url, tmp_path / "var" / "log" / "kbsite.log"
    finally:
        os.killpg(serve.pid, signal.SIGTERM)  # serve stops its gunicorn; gunicorn its workers
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
        log.close()


# What an admin page and the API docs load, and the pages themselves.
MIXED = [
    ACTIONS,
    "/api/health/",
    "/static/admin/js/urlify.js",
    "/api/docs/",
    "/static/admin/css/base.css",
    "/admin/login/",
    "/static/admin/js/vendor/select2/select2.full.min.js",
    SWAGGER,
    "/static/admin/js/vendor/jquery/jquery.min.js",
]


def _keep_alive_client(url: str, start: int, count: int, answers: list) -> None:
    """``count`` requests on one keep-alive connection, each asked as soon as the last is read, going round MIXED."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        for n in range(count):
            path = MIXED[(start + n) % len(MIXED)]
            connection.request("GET", path)
            response = connection.getresponse()
            answers.append((path, response.status, response.read(), response.will_close))
    finally:
        connection.close()


@pytest.mark.e2e
def test_keep_alive_clients_get_every_answer(served):
    """Four keep-alive connections at once, 100 requests each for static files, pages and the health check, against
    ``manage.py serve``: no 5xx, every file's bytes as on disk, every connection kept open (issue 31: 75 of 300
    static files and 21 of 300 mixed requests answered 500 "CurrentThreadExecutor already quit or is broken")."""
    url, log = served
    answers = []
    clients = [threading.Thread(target=_keep_alive_client, args=(url, n, 100, answers)) for n in range(4)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(timeout=300)
    assert len(answers) == 400
    statuses = Counter(status for _, status, _, _ in answers)
    assert statuses == {200: 400}, f"{statuses}; the server's log ends:\n{log.read_text()[-3000:]}"
    files = {path: static_bytes(path) for path in MIXED if path.startswith("/static/")}
    assert all(body == files[path] for path, _, body, _ in answers if path in files)
    assert all(json.loads(body)["status"] == "ok" for path, _, body, _ in answers if path == "/api/health/")
    assert not any(will_close for _, _, _, will_close in answers)
    assert "CurrentThreadExecutor" not in log.read_text()
