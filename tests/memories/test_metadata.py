"""Metadata: a small JSON object of the client's own labels on turns, text and memories, carried from a turn to
its facts and filterable in recall, the memories list and the tools (issue 19, finding 9)."""

from __future__ import annotations

import json

from memories.models import Memory, Message
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks


def _turn(ext, content, **metadata):
    return {"external_id": ext, "speaker": "Alice", "content": content, "metadata": metadata}


def test_metadata_goes_from_turns_and_text_to_their_facts_and_filters_recall(api, kb):
    turns = [
        _turn("w1", "I am allergic to shellfish and peanuts.", channel="web"),
        _turn("a1", "I am training for the Berlin marathon in April.", channel="app", topic="sport"),
    ]
    assert api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "messages": turns}).status_code == 202
    body = {"text": "Alice's team meets every Monday at nine about the kitchen budget.", "metadata": {"channel": "crm"}}
    assert api.post("/api/v1/kbs/notes/ingest/", json=body).status_code == 202
    run_queued_tasks()
    memories_embed_missing()
    assert Message.objects.get(external_id="a1").metadata == {"channel": "app", "topic": "sport"}
    by_channel = {m.metadata.get("channel"): m for m in Memory.objects.all()}
    assert set(by_channel) == {"web", "app", "crm"}
    assert by_channel["app"].metadata == {"channel": "app", "topic": "sport"}

    def recalled(**extra):
        body = {"query": "What about Alice?", "k": 10, **extra}
        response = api.post("/api/v1/kbs/notes/recall/", json=body)
        assert response.status_code == 200, response.text
        return {hit["id"] for hit in response.json()["results"]}

    assert recalled(metadata={"channel": "web"}) == {by_channel["web"].pk}
    assert recalled(metadata={"channel": "app", "topic": "sport"}) == {by_channel["app"].pk}
    assert recalled(metadata={"channel": "nowhere"}) == set()
    assert len(recalled()) == 3

    listed = api.get("/api/v1/kbs/notes/memories/", params={"metadata": json.dumps({"channel": "crm"})}).json()
    assert [m["id"] for m in listed["results"]] == [by_channel["crm"].pk]
    assert listed["results"][0]["metadata"] == {"channel": "crm"}

    found = api.post(
        "/api/v1/tools/memory_search/", json={"arguments": {"query": "allergies", "metadata": {"channel": "web"}}}
    ).json()["result"]["results"]
    assert [hit["id"] for hit in found] == [by_channel["web"].pk]


def test_metadata_set_by_a_tool_and_an_edit(api, kb):
    added = api.post(
        "/api/v1/tools/memory_add/",
        json={"arguments": {"text": "The canteen opens at noon.", "metadata": {"source": "notice"}}},
    ).json()["result"]
    assert Memory.objects.get(pk=added["id"]).metadata == {"source": "notice"}
    patched = api.patch(f"/api/v1/kbs/notes/memories/{added['id']}/", json={"metadata": {"source": "poster"}})
    assert patched.status_code == 200 and patched.json()["metadata"] == {"source": "poster"}
    assert patched.json()["id"] == added["id"]  # labels change in place; only a new wording is a new version


def test_bad_metadata_is_a_clear_400(api, kb):
    bad_turn = {"session_id": "s1", "messages": [{"external_id": "x", "content": "Hello there you.", "metadata": [1]}]}
    response = api.post("/api/v1/kbs/notes/messages/", json=bad_turn)
    assert response.status_code == 400 and "JSON object" in response.text
    huge = {"text": "Some text to remember.", "metadata": {"k": "v" * 3000}}
    response = api.post("/api/v1/kbs/notes/ingest/", json=huge)
    assert response.status_code == 400 and "2000 characters" in response.text
    response = api.get("/api/v1/kbs/notes/memories/", params={"metadata": "{not json"})
    assert response.status_code == 400 and "metadata" in response.json()
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": "x", "metadata": "channel=web"})
    assert response.status_code == 400
    response = api.post(
        "/api/v1/tools/memory_add/", json={"arguments": {"text": "A fact to keep.", "metadata": {"k": {"deep": 1}}}}
    )
    assert response.status_code == 400
