"""The MCP server with the ``mcp`` SDK's own client over streamable HTTP: initialize, list the tools (the same
registry as /api/v1/tools/), call them for the bot and for one of its end users (X-User-Id), and the refusals: a
bad key is a 401, another bot's knowledge base and a missing document are tool errors that say why."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from kbsite.keys import key_issue
from memories.models import Memory
from memories.tools import TOOLS


def connect(url: str, key: str, *, user: str | None = None, mode: str = "auto") -> Client:
    headers = {"Authorization": f"Bearer {key}", **({"X-User-Id": user} if user else {})}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(f"{url}/mcp/", http_client=http), mode=mode)


def call(url: str, key: str, name: str, arguments: dict, *, user: str | None = None):
    async def go():
        async with connect(url, key, user=user) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(go)


def result_of(called) -> dict:
    assert not called.is_error, called.content
    return json.loads(called.content[0].text)


@pytest.fixture
def key(bot, kb):
    return key_issue(bot)[1]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_initialize_and_list_the_tools(asgi_server, key, mode):
    """The initialize handshake (legacy) and the current protocol's discovery (auto) both list every tool, with
    a schema an agent can fill in: the bot's own KBs named in it."""

    async def go():
        async with connect(asgi_server.url, key, mode=mode) as client:
            return await client.list_tools()

    listed = anyio.run(go)
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOLS)
    for tool in tools.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.input_schema["properties"]["kb"]["enum"] == ["notes"]
    assert tools["memory_add"].input_schema["required"] == ["text"]


def test_memory_add_and_search_for_one_end_user(asgi_server, key):
    added = result_of(call(asgi_server.url, key, "memory_add", {"text": "Ann is allergic to peanuts."}, user="ann"))
    assert added["created"] is True
    assert Memory.objects.get(pk=added["id"]).end_user.external_id == "ann"
    found = result_of(call(asgi_server.url, key, "memory_search", {"query": "peanut allergy"}, user="ann"))
    assert [r["text"] for r in found["results"]] == ["Ann is allergic to peanuts."]
    for other in ("ben", None):
        found = result_of(call(asgi_server.url, key, "memory_search", {"query": "peanut allergy"}, user=other))
        assert found["results"] == []


def test_knowledge_write_then_read(asgi_server, key, kb):
    content = "# Opening hours\n\nThe shop opens at nine."
    written = result_of(call(asgi_server.url, key, "knowledge_write", {"slug": "hours", "content": content}))
    assert written["slug"] == "hours" and (kb.knowledge_dir / "hours.md").read_text() == content
    read = result_of(call(asgi_server.url, key, "knowledge_read", {"slug": "hours"}))
    assert read["content"] == content
    listed = result_of(call(asgi_server.url, key, "knowledge_list", {}))
    assert [d["slug"] for d in listed["documents"]] == ["hours"]


def test_refusals_are_tool_errors_that_say_why(asgi_server, key, other_kb):
    missing = call(asgi_server.url, key, "knowledge_read", {"slug": "nothing-here"})
    assert missing.is_error and "no document 'nothing-here'" in missing.content[0].text
    cross_bot = call(asgi_server.url, key, "memory_search", {"query": "secrets", "kb": "secret"})
    assert cross_bot.is_error and "'secret' is not one of ['notes']" in cross_bot.content[0].text
    nul = call(asgi_server.url, key, "memory_add", {"text": "a NUL \x00 here"})
    assert nul.is_error and "NUL" in nul.content[0].text
    assert not Memory.objects.exists()


def test_a_bad_key_is_a_401(asgi_server, key):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer kb_wrong"}):
        response = requests.post(f"{asgi_server.url}/mcp/", json=body, headers=headers, timeout=10)
        assert response.status_code == 401 and "API key" in response.json()["error"]["message"]
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    bad_user = requests.post(
        f"{asgi_server.url}/mcp", json=body, headers={"Authorization": f"Bearer {key}", "X-User-Id": "a b"}, timeout=10
    )
    assert bad_user.status_code == 400 and "X-User-Id" in bad_user.json()["error"]["message"]

    async def go():
        async with connect(asgi_server.url, "kb_wrong") as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK's own error for a 401, whichever it raises
        anyio.run(go)
