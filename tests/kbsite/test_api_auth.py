"""Authentication and cross-bot isolation on every endpoint."""

from __future__ import annotations

import pytest

from tests.factories import InsightFactory, MemoryFactory

ENDPOINTS = [
    ("GET", "/api/v1/kbs/"),
    ("POST", "/api/v1/kbs/"),
    ("GET", "/api/v1/kbs/{kb}/"),
    ("PATCH", "/api/v1/kbs/{kb}/"),
    ("DELETE", "/api/v1/kbs/{kb}/"),
    ("POST", "/api/v1/kbs/{kb}/clear/"),
    ("GET", "/api/v1/kbs/{kb}/memories/"),
    ("GET", "/api/v1/kbs/{kb}/memories/{memory}/"),
    ("PATCH", "/api/v1/kbs/{kb}/memories/{memory}/"),
    ("POST", "/api/v1/kbs/{kb}/memories/{memory}/retire/"),
    ("DELETE", "/api/v1/kbs/{kb}/memories/{memory}/"),
    ("GET", "/api/v1/kbs/{kb}/insights/"),
    ("GET", "/api/v1/kbs/{kb}/insights/{insight}/"),
]


@pytest.fixture
def target(other_kb):
    memory = MemoryFactory(kb=other_kb, text="The launch code is in the blue folder.")
    insight = InsightFactory(kb=other_kb, memories=[memory])
    return {"kb": other_kb.name, "memory": memory.pk, "insight": insight.pk}


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_no_key_is_a_401(anon, target, method, path):
    """Without a key every endpoint answers 401 and asks for a bearer key."""
    response = anon.request(method, path.format(**target), json={})
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["Bearer wrong-key", "Token abc", "Bearer ", "Basic dXNlcjpwYXNz"])
def test_bad_keys_are_401(anon, header):
    """Wrong keys and wrong schemes are refused with a message."""
    response = anon.get("/api/v1/kbs/", headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json()["detail"]


def test_revoked_key_is_a_401(api):
    """A revoked key stops working at once."""
    assert api.get("/api/v1/kbs/").status_code == 200
    api.bot.api_keys.get().revoke()
    assert api.get("/api/v1/kbs/").status_code == 401


def test_keys_are_stored_hashed(api):
    """The plain key is nowhere in the database, only its SHA-256."""
    stored = api.bot.api_keys.get()
    assert stored.hashed_key != api.key and api.key not in stored.hashed_key
    assert stored.prefix == api.key[:10]


@pytest.mark.parametrize(("method", "path"), [e for e in ENDPOINTS if "{kb}" in e[1]])
def test_other_bots_data_is_a_404(api, target, method, path):
    """Another bot's KB, memories and insights do not exist for this key: 404, and nothing changes."""
    response = api.request(method, path.format(**target), json={"text": "overwritten"})
    assert response.status_code == 404, response.text
    from memories.models import Memory

    memory = Memory.objects.get(pk=target["memory"])
    assert memory.text == "The launch code is in the blue folder." and memory.retired_at is None


def test_list_shows_only_own_kbs(api, kb, target):
    """The KB list of a bot holds its own KBs only."""
    names = [k["name"] for k in api.get("/api/v1/kbs/").json()["results"]]
    assert names == ["notes"]


def test_memory_ids_of_another_kb_of_same_bot_are_404(api, kb):
    """A memory id is only reachable under the KB it belongs to."""
    from tests.factories import KnowledgeBaseFactory

    elsewhere = MemoryFactory(kb=KnowledgeBaseFactory(bot=api.bot, name="other"))
    assert api.get(f"/api/v1/kbs/notes/memories/{elsewhere.pk}/").status_code == 404
    assert api.get(f"/api/v1/kbs/other/memories/{elsewhere.pk}/").status_code == 200
