"""Hostile input at the API's edge: text that cannot be stored (NUL, lone surrogates), in bodies, tool arguments,
file names and URL parts, and bodies nested too deep, each get a 400 that says where, never a 500, and nothing
is stored or written to disk."""

from __future__ import annotations

import json

import pytest

from knowledge.models import Document
from memories.models import IngestItem, Memory, Message

pytestmark = pytest.mark.django_db


def _post_json(api, path: str, body) -> object:
    raw = body if isinstance(body, str) else json.dumps(body)  # json.dumps keeps \u0000 and \ud800 escaped
    return api.post(path, data=raw, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/api/v1/tools/knowledge_write/", {"arguments": {"slug": "nul-tool", "content": "# T\nhello\u0000world"}},
         "arguments.content holds a NUL character"),
        ("/api/v1/tools/memory_add/", {"arguments": {"text": "Alice likes tea.", "entities": ["a\u0000b"]}},
         "arguments.entities[0] holds a NUL character"),
        ("/api/v1/tools/memory_add/", {"arguments": {"text": "Alice likes tea.", "topics": ["\ud800"]}},
         "arguments.topics[0] holds a lone surrogate"),
        ("/api/v1/tools/memory_search/", {"arguments": {"query": "tea \udfff"}},
         "arguments.query holds a lone surrogate"),
        ("/api/v1/tools/search_knowledge_base/", {"arguments": {"query": "tea", "session_id": "s\u0000"}},
         "arguments.session_id holds a NUL character"),
        ("/api/v1/kbs/notes/messages/",
         {"session_id": "s1", "messages": [{"external_id": "m1", "content": "I moved to \ud83d Lisbon"}]},
         "messages[0].content holds a lone surrogate"),
        ("/api/v1/kbs/notes/ingest/", {"text": "Alice\u0000 likes tea", "source": "api"}, "text holds a NUL character"),
        ("/api/v1/kbs/notes/recall/", {"query": "tea\ud800"}, "query holds a lone surrogate"),
        ("/api/v1/kbs/notes/documents/", {"content": "# Doc\nA \u0000 B", "slug": "doc"}, "content holds a NUL"),
        ("/api/v1/kbs/", {"name": "new", "description": "x\u0000"}, "description holds a NUL character"),
        ("/api/v1/kbs/notes/recall/", {"query": "x", "\u0000": 1}, "a key of the body holds a NUL character"),
    ],
)  # fmt: skip
def test_unstorable_text_in_a_body_is_a_400_that_says_where(api, kb, path, body, where):
    response = _post_json(api, path, body)
    assert response.status_code == 400, response.text
    assert where in response.json()["detail"]
    assert not Memory.objects.exists() and not Message.objects.exists() and not IngestItem.objects.exists()
    assert not Document.objects.exists() and not list(kb.knowledge_dir.iterdir())


def test_tool_arguments_sent_as_a_json_string_are_checked_too(api, kb):
    """A model's arguments arrive as the JSON string it produced; they are parsed and checked like a body."""
    arguments = json.dumps({"slug": "notes-1", "content": "# N\n\u0000"})
    response = _post_json(api, "/api/v1/tools/knowledge_write/", {"arguments": arguments})
    assert response.status_code == 400 and "arguments.content holds a NUL character" in response.json()["detail"]
    assert not (kb.knowledge_dir / "notes-1.md").exists()
    deep = _post_json(api, "/api/v1/tools/memory_search/", {"arguments": "[" * 5000 + "]" * 5000})
    assert deep.status_code == 400


@pytest.mark.parametrize("path", ["/api/v1/kbs/%00/", "/api/v1/kbs/notes/documents/a%00b/", "/api/v1/kbs/?x=%00"])
def test_unstorable_text_in_the_url_is_a_json_400(api, kb, path):
    response = api.get(path)
    assert response.status_code == 400 and "NUL character" in response.json()["detail"]


def test_a_nul_in_an_admin_url_is_a_400_not_a_500(admin_client):
    assert admin_client.get("/admin/kbsite/bot/%00/change/").status_code == 400


@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_deeply_nested_json_is_a_400(api, kb, depth):
    response = _post_json(api, "/api/v1/kbs/notes/recall/", "[" * depth + "]" * depth)
    assert response.status_code == 400 and "nested" in response.json()["detail"]


def test_an_upload_named_with_a_nul_is_stored_under_the_name_without_it(api, kb):
    """Django's multipart parser drops control characters from file names: the upload is kept under a clean name."""
    response = api.post("/api/v1/kbs/notes/documents/", files={"file": ("a\x00b.txt", b"Alice likes tea.")})
    assert response.status_code == 202, response.text
    document = Document.objects.get()
    assert "\x00" not in document.source and document.slug == "ab"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/api/v1/nope/", 404), ("GET", "/api/v2/", 404), ("GET", "/api/v1/kbs/notes/memories/abc/", 404)],
)
def test_every_api_error_is_json(api, kb, method, path, status):
    """A URL no endpoint answers is a JSON 404 under /api/ (the admin keeps its pages)."""
    response = api.request(method, path)
    assert response.status_code == status and response.headers["Content-Type"] == "application/json"
    assert "No API endpoint" in response.json()["detail"]


def test_a_bad_host_header_is_a_json_400(live_server):
    import requests

    response = requests.get(f"{live_server.url}/api/v1/kbs/", headers={"Host": "evil.example"}, timeout=10)
    assert response.status_code == 400 and response.headers["Content-Type"] == "application/json"


def test_a_json_body_sent_as_a_form_is_refused_with_415_naming_application_json(api, kb):
    """`curl -d '{…}'` sends JSON as application/x-www-form-urlencoded: a 415 that says to send application/json,
    not the form's "This field is required." for every field."""
    body = '{"session_id": "s", "messages": [{"external_id": "1", "content": "hi"}]}'
    response = api.post(
        "/api/v1/kbs/notes/messages/",
        data=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415, response.text
    assert "Content-Type: application/json" in response.json()["detail"]


def test_a_post_without_the_trailing_slash_is_served_as_with_it(api, kb):
    """POST /api/v1/kbs/notes/messages (no slash) stores the turns: no redirect that drops the body."""
    turns = {"session_id": "s", "messages": [{"external_id": "1", "content": "I live in Lisbon."}]}
    response = api.post("/api/v1/kbs/notes/messages", json=turns)
    assert response.status_code == 202, response.text
    assert response.json()["accepted"] == 1
    assert api.get("/api/v1/kbs/notes").status_code == 200
    assert api.post("/api/v1/no-such-thing", json={}).status_code == 404


def test_a_nul_in_a_multipart_forms_json_metadata_is_a_400_not_a_500(api, kb):
    """Found by the schema test once metadata was documented as an object: a form's JSON part is parsed by the
    field, not by the JSON parser that checks bodies, and a NUL in it reached PostgreSQL (a 500)."""
    response = api.post(
        "/api/v1/kbs/notes/ingest/",
        files=[
            ("text", (None, "Alice lives in Lisbon.")),
            ("metadata", (None, '{"channel": "we\\u0000b"}', "application/json")),
        ],
    )
    assert response.status_code == 400, response.text
    assert "metadata.channel holds a NUL character" in response.text
