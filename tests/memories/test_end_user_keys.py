"""Keys of one end user: issued by the bot for a client of that user's own, they act as the user and only as them,
on the API, MCP and the chat proxy: a request naming no user is theirs, one naming another is a 403, and every
endpoint beyond an end user's own needs is a 403. Revoked or erased with the user, a key is a 401."""

from __future__ import annotations

import openai
import pytest
import requests

from kbsite.models import ApiKey
from memories.models import Memory, Session
from tests.conftest import ApiClient, run_queued_tasks
from tests.memories.mcp.test_mcp import call, result_of
from tests.memories.proxy.test_proxy import recordings_run


def issue(api, user: str, name: str = "phone app") -> dict:
    response = api.post(f"/api/v1/users/{user}/keys/", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture
def alice_api(api, two_users) -> ApiClient:
    return ApiClient(base_url=api.base_url, key=issue(api, "alice")["key"])


def texts(response) -> set[str]:
    assert response.status_code == 200, response.text
    return {hit["text"] for hit in response.json()["results"]}


def test_a_key_is_issued_once_listed_without_itself_and_revoked(api, two_users):
    issued = issue(api, "alice")
    assert issued["key"].startswith("kb_") and issued["user_id"] == "alice" and issued["name"] == "phone app"
    assert ApiKey.objects.get(pk=issued["id"]).end_user.external_id == "alice"
    listed = api.get("/api/v1/users/alice/keys/").json()["results"]
    assert [(k["id"], k["key"], k["prefix"]) for k in listed] == [(issued["id"], None, issued["key"][:10])]
    assert api.get("/api/v1/users/bob/keys/").json()["results"] == []
    # A new end user gets a key before the bot has posted anything of theirs.
    assert issue(api, "carol")["user_id"] == "carol"
    alice = ApiClient(base_url=api.base_url, key=issued["key"])
    assert alice.get("/api/v1/context/", params={"query": "dinner"}).status_code == 200
    assert api.delete(f"/api/v1/users/alice/keys/{issued['id']}/").status_code == 204
    assert alice.get("/api/v1/context/", params={"query": "dinner"}).status_code == 401
    assert api.get("/api/v1/users/alice/keys/").json()["results"][0]["revoked_at"] is not None


def test_another_bots_user_keys_are_out_of_reach(api, other_api, two_users):
    issued = issue(api, "alice")
    assert other_api.get("/api/v1/users/alice/keys/").json()["results"] == []
    assert other_api.delete(f"/api/v1/users/alice/keys/{issued['id']}/").status_code == 404
    assert api.post("/api/v1/users/bad%20id/keys/", json={}).status_code == 404


def test_the_key_acts_as_its_user_without_naming_them(alice_api, api, two_users, kb):
    query = {"query": "What about shellfish?", "k": 10}
    assert texts(alice_api.post("/api/v1/kbs/notes/recall/", json=query)) == {
        "Alice is allergic to shellfish.",
        "The office canteen serves fish on Fridays.",
    }
    context = alice_api.get("/api/v1/context/", params={"query": "shellfish"}).json()["context"]
    assert "Alice is allergic" in context and "Bob" not in context
    turns = {"session_id": "phone", "messages": [{"external_id": "p1", "content": "I adopted a cat named Luna."}]}
    assert alice_api.post("/api/v1/kbs/notes/messages/", json=turns).status_code == 202
    assert alice_api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice plays the cello on Sundays."}).ok
    run_queued_tasks()
    assert Memory.objects.get(text__contains="Luna").end_user.external_id == "alice"
    assert Memory.objects.get(text__contains="cello").end_user.external_id == "alice"
    # Bob's memory is the one about mussels; searching for them, the key finds Alice's and the shared ones only.
    found = alice_api.post("/api/v1/tools/memory_search/", json={"arguments": {"query": "shellfish mussels"}})
    assert found.status_code == 200, found.text
    found_texts = {hit["text"] for hit in found.json()["result"]["results"]}
    assert "Alice is allergic to shellfish." in found_texts and not any("Bob" in text for text in found_texts)
    as_bob = {"arguments": {"query": "shellfish mussels"}, "user_id": "bob"}
    assert "Bob loves shellfish" in api.post("/api/v1/tools/memory_search/", json=as_bob).text  # it is there
    assert alice_api.post("/api/v1/kbs/notes/ask/", json={"question": "What is Alice allergic to?"}).ok
    assert alice_api.get("/api/v1/users/alice/").json()["user_id"] == "alice"
    assert alice_api.get("/api/v1/users/alice/export/").status_code == 200


def test_the_key_cannot_act_for_another_user(alice_api, two_users):
    refused = [
        alice_api.post("/api/v1/kbs/notes/recall/", json={"query": "shellfish", "user_id": "bob"}),
        alice_api.get("/api/v1/context/", params={"query": "shellfish", "user_id": "bob"}),
        alice_api.post("/api/v1/kbs/notes/ask/", json={"question": "Who likes mussels?", "user_id": "bob"}),
        alice_api.post("/api/v1/tools/memory_search/", json={"arguments": {"query": "mussels"}, "user_id": "bob"}),
        alice_api.post(
            "/api/v1/kbs/notes/messages/",
            json={"session_id": "x", "user_id": "bob", "messages": [{"external_id": "b9", "content": "I hate cats."}]},
        ),
        alice_api.get("/api/v1/users/bob/"),
        alice_api.get("/api/v1/users/bob/export/"),
        alice_api.delete("/api/v1/users/bob/"),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert "cannot act for 'bob'" in refused[0].json()["detail"]
    # Bob's session is not hers to post to, and the answer does not say whose it is.
    Session.objects.create(kb=two_users[0].bot.knowledge_bases.get(), external_id="chat-2", end_user=two_users[1])
    turns = {"session_id": "chat-2", "messages": [{"external_id": "x1", "content": "I moved to Oslo."}]}
    taken = alice_api.post("/api/v1/kbs/notes/messages/", json=turns)
    assert taken.status_code == 409 and "bob" not in taken.text and "not yours" in taken.json()["detail"]
    assert Memory.objects.filter(end_user__external_id="bob").count() == 1


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/v1/kbs/"),
        ("get", "/api/v1/kbs/notes/"),
        ("get", "/api/v1/kbs/notes/memories/"),
        ("get", "/api/v1/kbs/notes/insights/"),
        ("get", "/api/v1/kbs/notes/documents/"),
        ("get", "/api/v1/kbs/notes/export/"),
        ("post", "/api/v1/kbs/notes/clear/"),
        ("post", "/api/v1/kbs/notes/consolidate/"),
        ("get", "/api/v1/users/"),
        ("get", "/api/v1/jobs/"),
        ("post", "/api/v1/users/alice/keys/"),
        ("get", "/api/v1/users/alice/keys/"),
    ],
)
def test_everything_else_is_refused(alice_api, two_users, method, path):
    response = getattr(alice_api, method)(path)
    assert response.status_code == 403, response.text
    assert "This key is end user 'alice'" in response.json()["detail"]
    assert Memory.objects.count() == 3


def test_erasing_the_user_erases_their_keys(api, alice_api, two_users):
    assert alice_api.delete("/api/v1/users/alice/").status_code == 200
    assert not ApiKey.objects.filter(end_user__isnull=False).exists()
    assert alice_api.get("/api/v1/context/", params={"query": "shellfish"}).status_code == 401
    assert api.get("/api/v1/context/", params={"query": "shellfish"}).status_code == 200


def test_mcp_with_a_key_of_one_user(asgi_server, asgi_api, two_users):
    key = issue(asgi_api, "alice")["key"]
    found = result_of(call(asgi_server.url, key, "memory_search", {"query": "shellfish"}))
    assert "Alice is allergic" in str(found) and "Bob" not in str(found)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Authorization": f"Bearer {key}", "X-User-Id": "bob"}
    refused = requests.post(f"{asgi_server.url}/mcp/", json=body, headers=headers, timeout=10)
    assert refused.status_code == 403 and "cannot act for 'bob'" in refused.json()["error"]["message"]
    with pytest.raises(Exception):  # noqa: B017 - the SDK's own error for a 403, whichever it raises
        call(asgi_server.url, key, "memory_search", {"query": "shellfish"}, user="bob")


def test_the_chat_proxy_with_a_key_of_one_user(asgi_server, asgi_api, two_users, fake_llm, settings):
    settings.PROXY_MODELS = {"gpt-test": "fake-model"}
    key = issue(asgi_api, "alice")["key"]
    client = openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key=key, max_retries=0, timeout=20)
    fake_llm.reply_raw("A mushroom risotto.")
    ask = [{"role": "user", "content": "What shellfish dish should I cook tonight?"}]
    assert client.chat.completions.create(model="gpt-test", messages=ask).choices[0].message.content
    block = fake_llm.requests[-1]["messages"][0]["content"]
    assert "Alice is allergic to shellfish." in block and "Bob" not in block
    fake_llm.reply_json({"add": [], "supersede": [], "edges": []})
    recordings_run(1)
    assert Session.objects.get().end_user.external_id == "alice"
    with pytest.raises(openai.PermissionDeniedError) as refused:
        client.chat.completions.create(model="gpt-test", messages=ask, user="bob")
    assert "cannot act for 'bob'" in str(refused.value)
