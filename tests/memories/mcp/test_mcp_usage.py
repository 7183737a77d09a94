"""MCP's tool calls metered as the API's are: each served call is a request of the bot in its daily usage with what
it spent, a refused one counts nothing, and the LLM tokens of a tool's work count and are held against the bot's
LLM budget (ask in LLM mode, then extractive once the budget is spent)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from kbsite.keys import key_issue
from kbsite.models import EndUser
from kbsite.models.stats import DailyUsage
from memories.recall.answers import kb_ask
from memories.services import memories_embed_missing
from memories.tools import TOOLS, Tool
from memories.tools.registry import QUERY, one_kb
from tests.factories import MemoryFactory
from tests.memories.mcp.test_mcp import call, result_of

# The fake LLM's reply costs 120 + 30 tokens: a budget of 150 is spent by one answer.
BUDGET = 150


@pytest.fixture
def key(bot, kb):
    return key_issue(bot)[1]


@pytest.fixture
def alice(kb):
    """End user alice of the bot, with a fact of hers, embedded."""
    alice = EndUser.objects.seen(kb.bot, "alice")
    MemoryFactory(kb=kb, end_user=alice, text="Alice lives in Lisbon.")
    memories_embed_missing()
    return alice


def _ask(caller, kbs, args):
    answer = kb_ask(kb=one_kb(kbs, args), question=args["question"], caller=caller)
    return {"answer": answer.answer, "mode": answer.mode, "citations": answer.citations}


@pytest.fixture
def ask_tool(monkeypatch):
    """A tool whose work is ask (none of the registered tools calls the LLM today): what any tool that does is
    held to, through the same registry and server."""
    monkeypatch.setitem(TOOLS, "ask", Tool("ask", "Answer a question.", {"question": QUERY}, ("question",), _ask))


def today(**filters) -> DailyUsage:
    return DailyUsage.objects.get(day=timezone.now().date(), **filters)


def test_an_mcp_tool_call_counts_in_the_bots_usage(asgi_server, key, kb, alice):
    """memory_search through MCP for alice: one request of the bot for her (no one KB's, as the API's tool call),
    its query embedded, no LLM call; two calls, two requests."""
    search = {"query": "Where does Alice live?"}
    for n in (1, 2):
        found = result_of(call(asgi_server.url, key, "memory_search", search, user="alice"))
        assert [r["text"] for r in found["results"]] == ["Alice lives in Lisbon."]
        row = today(bot=kb.bot, kb=None, end_user=alice)
        assert (row.requests, row.llm_calls) == (n, 0) and row.embeddings >= n


def test_a_refused_mcp_tool_call_counts_nothing(asgi_server, key, kb):
    """A tool error (a missing document) counts nothing, as a refused API request."""
    assert call(asgi_server.url, key, "knowledge_read", {"slug": "nothing-here"}).is_error
    assert not DailyUsage.objects.exists()


def test_with_accounting_off_an_mcp_tool_call_counts_nothing(asgi_server, key, kb, alice, settings):
    """USAGE_ACCOUNTING off: MCP keeps no daily usage either."""
    settings.USAGE_ACCOUNTING = False
    result_of(call(asgi_server.url, key, "memory_search", {"query": "Where does Alice live?"}, user="alice"))
    assert not DailyUsage.objects.exists()


def test_an_llm_answer_through_mcp_counts_its_tokens_and_is_held_by_the_budget(
    asgi_server, api, key, kb, alice, fake_llm, ask_tool
):
    """An answer by the LLM through MCP: its call and the fake LLM's 120 + 30 tokens are in the bot's usage for
    alice, and they spend the budget of 150, so the next answer is extractive, saying why, with no LLM call."""
    assert api.patch("/api/v1/bot/", json={"llm_tokens_per_day": BUDGET}).status_code == 200
    fake_llm.reply_json({"answer": "In Lisbon.", "citations": []}, tokens_in=120, tokens_out=30)
    question = {"question": "Where does Alice live?"}
    answered = result_of(call(asgi_server.url, key, "ask", question, user="alice"))
    assert answered["mode"] == "llm"
    row = today(bot=kb.bot, kb=None, end_user=alice)
    assert (row.requests, row.llm_calls, row.tokens_in, row.tokens_out) == (1, 1, 120, 30)
    held = result_of(call(asgi_server.url, key, "ask", question, user="alice"))
    assert held["mode"] == "extractive (LLM budget spent)" and "Lisbon" in held["answer"]
    assert fake_llm.calls == 1
    assert today(bot=kb.bot, kb=None, end_user=alice).requests == 2
