"""Read-only keys (of the bot, or of one end user): they list, recall, read the context, ask and search, on the API
and MCP, and every write is a 403 that says so: posting turns or text, editing, retiring, deleting, the tools that
change anything, the chat proxy (which records the conversation)."""

from __future__ import annotations

import anyio
import openai
import pytest
from django.urls import reverse

from kbsite.keys import key_issue
from kbsite.models import ApiKey
from memories.models import Memory
from memories.tools import CHANGES, TOOLS
from tests.conftest import ApiClient
from tests.memories.mcp.test_mcp import call, connect, result_of


@pytest.fixture
def reader(api, two_users) -> ApiClient:
    _, plain = key_issue(api.bot, name="dashboard", read_only=True)
    return ApiClient(base_url=api.base_url, key=plain)


def test_a_read_only_key_reads(reader, two_users):
    memory = Memory.objects.get(text="Alice is allergic to shellfish.")
    reads = [
        reader.get("/api/v1/kbs/"),
        reader.get("/api/v1/kbs/notes/memories/"),
        reader.get(f"/api/v1/kbs/notes/memories/{memory.pk}/history/"),
        reader.get("/api/v1/context/", params={"query": "shellfish", "user_id": "alice"}),
        reader.post("/api/v1/kbs/notes/recall/", json={"query": "shellfish", "user_id": "alice"}),
        reader.post("/api/v1/kbs/notes/ask/", json={"question": "What is Alice allergic to?", "user_id": "alice"}),
        reader.post("/api/v1/kbs/notes/documents/search/", json={"query": "shellfish"}),
        reader.post("/api/v1/tools/memory_search/", json={"arguments": {"query": "shellfish"}, "user_id": "alice"}),
        reader.get("/api/v1/users/alice/export/"),
        reader.get("/api/v1/kbs/notes/export/"),
    ]
    assert [r.status_code for r in reads] == [200] * len(reads), [r.text for r in reads if r.status_code != 200]
    assert "Alice is allergic" in reads[4].text
    # The tools it is offered are those it may call.
    offered = {t["function"]["name"] for t in reader.get("/api/v1/tools/").json()["tools"]}
    assert offered == set(TOOLS) - CHANGES and "memory_search" in offered


def test_a_read_only_key_writes_nothing(reader, two_users):
    memory = Memory.objects.get(text="Alice is allergic to shellfish.")
    turns = {"session_id": "s", "messages": [{"external_id": "1", "content": "I moved to Oslo last week."}]}
    writes = [
        reader.post("/api/v1/kbs/notes/messages/", json=turns),
        reader.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice moved to Oslo."}),
        reader.patch(f"/api/v1/kbs/notes/memories/{memory.pk}/", json={"text": "Alice is not allergic."}),
        reader.post(f"/api/v1/kbs/notes/memories/{memory.pk}/retire/", json={"reason": "no"}),
        reader.delete(f"/api/v1/kbs/notes/memories/{memory.pk}/"),
        reader.post("/api/v1/kbs/", json={"name": "more"}),
        reader.post("/api/v1/kbs/notes/clear/"),
        reader.delete("/api/v1/users/alice/"),
        reader.post("/api/v1/users/alice/keys/", json={}),
        reader.post("/api/v1/tools/memory_add/", json={"arguments": {"text": "Alice hates Mondays."}}),
        reader.post("/api/v1/tools/memory_forget/", json={"arguments": {"id": memory.pk, "reason": "no"}}),
    ]
    assert [r.status_code for r in writes] == [403] * len(writes), [r.text for r in writes if r.status_code != 403]
    assert "reads only" in writes[0].json()["detail"]
    assert "reads only" in writes[-1].json()["detail"]
    assert Memory.objects.count() == 3 and Memory.objects.get(pk=memory.pk).retired_at is None
    assert not ApiKey.objects.filter(end_user__isnull=False).exists()


def test_a_read_only_key_of_one_user_reads_only_theirs(api, two_users):
    issued = api.post("/api/v1/users/alice/keys/", json={"name": "viewer", "read_only": True}).json()
    assert issued["read_only"] is True
    alice = ApiClient(base_url=api.base_url, key=issued["key"])
    recalled = alice.post("/api/v1/kbs/notes/recall/", json={"query": "shellfish", "k": 10})
    assert recalled.status_code == 200 and "Bob" not in recalled.text and "Alice is allergic" in recalled.text
    turns = {"session_id": "s", "messages": [{"external_id": "1", "content": "I moved to Oslo last week."}]}
    assert alice.post("/api/v1/kbs/notes/messages/", json=turns).status_code == 403


def test_mcp_and_the_proxy_with_a_read_only_key(asgi_server, bot, two_users, fake_llm):
    _, plain = key_issue(bot, read_only=True)

    async def listed():
        async with connect(asgi_server.url, plain) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    assert anyio.run(listed) == set(TOOLS) - CHANGES
    found = result_of(call(asgi_server.url, plain, "memory_search", {"query": "shellfish"}, user="alice"))
    assert "Alice is allergic" in str(found)
    refused = call(asgi_server.url, plain, "memory_add", {"text": "Alice hates Mondays."}, user="alice")
    assert refused.is_error and "reads only" in refused.content[0].text
    assert not Memory.objects.filter(text__contains="Mondays").exists()
    client = openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key=plain, max_retries=0, timeout=20)
    with pytest.raises(openai.PermissionDeniedError) as denied:
        client.chat.completions.create(model="gpt", messages=[{"role": "user", "content": "Hi"}], user="alice")
    assert "reads only" in str(denied.value) and fake_llm.calls == 0


def test_an_operator_issues_a_read_only_key_in_the_admin(admin_client, bot):
    action = {"action": "issue_read_only_key", "_selected_action": [bot.pk]}
    response = admin_client.post(reverse("admin:kbsite_bot_changelist"), action, follow=True)
    shown = [str(m) for m in response.context["messages"]]
    assert len(shown) == 1 and shown[0].startswith(f"New read-only API key for {bot.name} (shown once): kb_")
    key = ApiKey.objects.get(read_only=True)
    assert key.bot == bot and ApiKey.hash(shown[0].rsplit(" ", 1)[1]) == key.hashed_key
