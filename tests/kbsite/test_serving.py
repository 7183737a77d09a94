"""The ASGI server as ``manage.py serve`` runs it: the API, the admin and static files through Django's sync handler
in a thread of their own (kbsite.serving.SyncViews), each request ending as under WSGI."""

from __future__ import annotations

import json

import requests
from django.core.signals import request_finished

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
