"""The chat proxies say in Kbsite-Usage-* headers what kbsite itself spent on a request (the context block it added:
texts embedded, LLM calls, time before going upstream), and count it in the bot's daily usage; the upstream's own
tokens stay in its answer's usage, as the upstream gave them."""

from __future__ import annotations

import openai
import pytest
from django.utils import timezone

from kbsite.keys import key_issue
from kbsite.models import Bot
from kbsite.models.stats import DailyUsage
from kbsite.stats import usage_add
from tests.conftest import wait_for


@pytest.fixture
def client(asgi_server, bot, fake_llm) -> openai.OpenAI:
    _, key = key_issue(bot)
    return openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key=key, max_retries=0, timeout=20)


def headers_of(raw) -> dict[str, int]:
    names = ("Llm-Calls", "Tokens-In", "Tokens-Out", "Embeddings", "Server-Ms")
    return {name: int(raw.headers[f"Kbsite-Usage-{name}"]) for name in names}


def test_a_chat_completion_says_what_kbsite_spent_in_its_headers(client, two_users, fake_llm):
    """kbsite embedded the query for the context block and called no LLM of its own; the upstream's 120 / 30 tokens
    are the answer's usage; the bot's usage of the day holds alice's request, for no one KB."""
    alice, _ = two_users
    fake_llm.reply_raw("Try a mushroom risotto.", tokens_in=120, tokens_out=30)
    raw = client.chat.completions.with_raw_response.create(
        model="fake-model", messages=[{"role": "user", "content": "What shellfish dish tonight?"}], user="alice"
    )
    spent = headers_of(raw)
    assert (spent["Llm-Calls"], spent["Tokens-In"], spent["Tokens-Out"]) == (0, 0, 0)
    assert spent["Embeddings"] >= 1 and spent["Server-Ms"] >= 0
    answer = raw.parse()
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (120, 30)
    rows = DailyUsage.objects.filter(day=timezone.now().date(), bot=alice.bot, kb=None, end_user=alice)
    wait_for(rows.exists, 5, "the request's usage to be written")
    row = rows.get()
    assert (row.requests, row.embeddings, row.llm_calls) == (1, spent["Embeddings"], 0)
    assert (row.tokens_in, row.tokens_out, row.server_ms) == (0, 0, spent["Server-Ms"])  # the headers' figures


def test_a_stream_has_its_usage_headers_too(client, two_users, fake_llm):
    """A streamed answer's headers, sent before its first chunk, say what kbsite spent before going upstream."""
    fake_llm.reply_stream(["Mushroom ", "risotto."])
    with client.chat.completions.with_streaming_response.create(
        model="fake-model", messages=[{"role": "user", "content": "Any recipe?"}], user="alice", stream=True
    ) as raw:
        spent = headers_of(raw)
        list(raw.iter_lines())
    assert spent["Embeddings"] >= 1 and spent["Llm-Calls"] == 0


def test_without_accounting_no_usage_headers(client, two_users, fake_llm, settings):
    """USAGE_ACCOUNTING off: no Kbsite-Usage-* header."""
    settings.USAGE_ACCOUNTING = False
    fake_llm.reply_raw("Fine.")
    raw = client.chat.completions.with_raw_response.create(
        model="fake-model", messages=[{"role": "user", "content": "Hello?"}], user="alice"
    )
    assert not [name for name in raw.headers if name.lower().startswith("kbsite-usage")]


def test_a_spent_llm_budget_does_not_hold_the_proxy(client, two_users, fake_llm):
    """The bot's LLM tokens of the day are spent (and it chose to wait): the chat proxy still answers, and the
    upstream's tokens are not counted against the budget (they are the caller's)."""
    alice, _ = two_users
    Bot.objects.filter(pk=alice.bot_id).update(llm_tokens_per_day=100, when_budget_spent="wait")
    usage_add(bot_id=alice.bot_id, tokens_in=100)
    fake_llm.reply_raw("Try a mushroom risotto.", tokens_in=120, tokens_out=30)
    answer = client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "What shellfish dish tonight?"}], user="alice"
    )
    assert answer.choices[0].message.content == "Try a mushroom risotto."
    rows = DailyUsage.objects.filter(day=timezone.now().date(), bot=alice.bot)
    wait_for(lambda: rows.filter(end_user=alice).exists(), 5, "the request's usage to be written")
    assert sum(row.tokens_in + row.tokens_out for row in rows) == 100
