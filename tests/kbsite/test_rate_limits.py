"""Rate limits per key and the bot's own settings (issue 32): a key past its bot's requests per minute and burst is
a 429 with Retry-After on the API, MCP and the chat proxy (OpenAI's shape there, through the real ``openai``
client), counted per bot and day on the dashboard; ``GET``/``PATCH /api/v1/bot/`` reads and changes the limits
(a change applies to the next request), under the admin's rules for the name, for the bot's keys that may write."""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta

import openai
import pytest
import requests
from django.urls import reverse
from django.utils import timezone

from kbsite.keys import key_issue
from kbsite.models import Bot, EndUser, KnowledgeBase, RateBucket, RateLimitedDay
from tests.conftest import ApiClient
from tests.factories import BotFactory


def limit(bot: Bot, per_minute: int) -> None:
    """Give ``bot`` a real limit (the tests' bots have a million a minute)."""
    Bot.objects.filter(pk=bot.pk).update(requests_per_minute=per_minute)


def refused_today(bot: Bot) -> int:
    row = RateLimitedDay.objects.filter(bot=bot, day=timezone.now().date()).first()
    return row.refused if row else 0


def test_a_key_past_its_limit_is_a_429_with_retry_after(api, kb):
    """At 6 a minute (a burst of 1, a token every 10 s) the second request at once is a 429 whose Retry-After says
    when a token is back and whose message names the limit; it is counted for the bot's day."""
    limit(api.bot, 6)
    assert api.get("/api/v1/kbs/").status_code == 200
    refused = api.get("/api/v1/kbs/")
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["Retry-After"]) <= 10
    assert "6 requests a minute" in refused.json()["detail"] and "burst of 1" in refused.json()["detail"]
    assert api.post("/api/v1/kbs/notes/recall/", json={"query": "x"}).status_code == 429  # every route, every method
    assert refused_today(api.bot) == 2


def test_each_key_has_its_own_bucket(api, kb):
    """Another key of the same bot is not held back by the first one's requests."""
    limit(api.bot, 6)
    other = ApiClient(base_url=api.base_url, key=key_issue(api.bot, name="second")[1], bot=api.bot)
    assert api.get("/api/v1/kbs/").status_code == 200
    assert api.get("/api/v1/kbs/").status_code == 429
    assert other.get("/api/v1/kbs/").status_code == 200
    assert RateBucket.objects.filter(key__bot=api.bot).count() == 2


def test_the_burst_and_the_refill(api, kb):
    """At 60 a minute a key makes its burst of 10 at once, then waits: the bucket refills at one a second."""
    limit(api.bot, 60)
    started = time.monotonic()
    answers = [api.get("/api/v1/kbs/").status_code for _ in range(14)]
    refilled = int(time.monotonic() - started) + 1  # tokens back while the requests were sent, at most
    assert answers[:10] == [200] * 10 and 10 <= answers.count(200) <= 10 + refilled and 429 in answers
    # A second and a half later (as the database's clock sees it) a token is back.
    RateBucket.objects.filter(key__bot=api.bot).update(refilled_at=timezone.now() - timedelta(seconds=1.5))
    assert api.get("/api/v1/kbs/").status_code == 200


def test_the_bots_settings_are_read_and_changed_and_the_new_limit_applies_at_once(api, kb):
    """GET shows the settings with the burst; PATCH changes them (a lower limit holds the very next request, 0
    lifts it), as the admin would."""
    got = api.get("/api/v1/bot/")
    assert got.status_code == 200, got.text
    assert got.json() | {"id": 0, "created_at": ""} == {
        "id": 0,
        "name": "alpha",
        "description": "",
        "requests_per_minute": 1_000_000,
        "burst": 166667,
        "llm_tokens_per_day": None,
        "when_budget_spent": "offline",
        "llm_tokens_today": 0,
        "llm_budget_spent": False,
        "created_at": "",
    }
    second = ApiClient(base_url=api.base_url, key=key_issue(api.bot, name="second")[1], bot=api.bot)
    changed = api.patch(
        "/api/v1/bot/", json={"requests_per_minute": 6, "llm_tokens_per_day": 50000, "when_budget_spent": "wait"}
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["burst"] == 1
    bot = Bot.objects.get(pk=api.bot.pk)
    assert (bot.requests_per_minute, bot.llm_tokens_per_day, bot.when_budget_spent) == (6, 50000, "wait")
    assert api.get("/api/v1/kbs/").status_code == 200  # the bucket, full before, now holds one
    assert api.get("/api/v1/kbs/").status_code == 429
    assert second.patch("/api/v1/bot/", json={"requests_per_minute": 0}).json()["burst"] == 0
    assert [api.get("/api/v1/kbs/").status_code for _ in range(5)] == [200] * 5


@pytest.mark.parametrize(
    "body",
    [
        {"name": "Not A Slug"},
        {"name": "-dash"},
        {"name": "x" * 65},
        {"name": "beta"},  # the other bot's
        {"name": ""},
        {"requests_per_minute": -1},
        {"requests_per_minute": 1_000_001},
        {"requests_per_minute": "many"},
        {"requests_per_minute": None},
        {"llm_tokens_per_day": 0},
        {"llm_tokens_per_day": -5},
        {"llm_tokens_per_day": 2**70},
        {"when_budget_spent": "panic"},
        {"description": "a\x00b"},
    ],
)
def test_invalid_settings_are_a_400_that_says_what_to_fix(api, other_api, body):
    """What the admin's form refuses the API refuses with a 400 naming the field; nothing changes."""
    before = Bot.objects.filter(pk=api.bot.pk).values().get()
    response = api.patch("/api/v1/bot/", json=body)
    assert response.status_code == 400, response.text
    assert set(response.json()) <= {*body, "detail"}
    assert Bot.objects.filter(pk=api.bot.pk).values().get() == before


def test_a_rename_follows_the_admins_rules_and_the_keys_go_on(api, kb):
    """A valid new name is taken (the name of another bot is not: a 400); the bot's keys and KBs stay its own."""
    BotFactory(name="taken")
    assert "already exists" in str(api.patch("/api/v1/bot/", json={"name": "taken"}).json()["name"])
    renamed = api.patch("/api/v1/bot/", json={"name": "alpha-2", "description": "Renamed."})
    assert renamed.status_code == 200 and renamed.json()["name"] == "alpha-2"
    assert [k["name"] for k in api.get("/api/v1/kbs/").json()["results"]] == ["notes"]
    assert api.get("/api/v1/bot/").json()["description"] == "Renamed."


def test_a_read_only_key_reads_the_settings_and_changes_none(api, kb):
    """A read-only key: GET 200, PATCH 403 saying it reads only, and nothing changed."""
    reader = ApiClient(base_url=api.base_url, key=key_issue(api.bot, read_only=True)[1], bot=api.bot)
    assert reader.get("/api/v1/bot/").json()["name"] == "alpha"
    refused = reader.patch("/api/v1/bot/", json={"requests_per_minute": 1})
    assert refused.status_code == 403 and "reads only" in refused.json()["detail"]
    assert Bot.objects.get(pk=api.bot.pk).requests_per_minute == 1_000_000


def test_an_end_users_key_neither_reads_nor_changes_the_settings(api, kb):
    """A key of one end user acts as that user only: the bot's settings are a 403 both ways."""
    alice = EndUser.objects.seen(api.bot, "alice")
    hers = ApiClient(base_url=api.base_url, key=key_issue(api.bot, end_user=alice)[1], bot=api.bot)
    for response in (hers.get("/api/v1/bot/"), hers.patch("/api/v1/bot/", json={"requests_per_minute": 1})):
        assert response.status_code == 403 and "end user 'alice'" in response.json()["detail"]
    assert Bot.objects.get(pk=api.bot.pk).requests_per_minute == 1_000_000


def test_refusals_are_on_the_dashboard(api, kb, other_api, admin_client):
    """The dashboard counts today's refusals of the bots in view, and charts them per day."""
    limit(api.bot, 6)
    for _ in range(4):
        api.get("/api/v1/kbs/")
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert re.search(r'<span class="n">3</span>refused \(429\) today', page)
    series = json.loads(re.search(r'id="dash-series" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert series["rate_limited"][-1] == 3 and sum(series["rate_limited"]) == 3
    other_only = admin_client.get(reverse("admin:index"), {"bot": other_api.bot.pk}).content.decode()
    assert re.search(r'<span class="n">0</span>refused \(429\) today', other_only)


def test_the_admin_edits_the_limits(admin_client, bot):
    """The bot's page in the admin holds the limits, with the same rules."""
    url = reverse("admin:kbsite_bot_change", args=[bot.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="requests_per_minute"' in page and 'name="when_budget_spent"' in page
    form = {"name": "alpha", "description": "", "is_active": "on", "requests_per_minute": "120"}
    form |= {"llm_tokens_per_day": "", "when_budget_spent": "wait", "api_keys-TOTAL_FORMS": "0"}
    form |= {"api_keys-INITIAL_FORMS": "0", "api_keys-MIN_NUM_FORMS": "0", "api_keys-MAX_NUM_FORMS": "1000"}
    saved = admin_client.post(url, form)
    assert saved.status_code == 302, saved.content.decode()[-3000:]
    bot.refresh_from_db()
    assert (bot.requests_per_minute, bot.llm_tokens_per_day, bot.when_budget_spent) == (120, None, "wait")


# --- MCP and the chat proxy: real HTTP to the ASGI server ------------------------------------------------------------


def test_mcp_past_the_limit_is_a_429_with_retry_after(asgi_api, kb):
    """The MCP gate holds a key to its limit like the API."""
    limit(asgi_api.bot, 6)
    headers = {"Authorization": f"Bearer {asgi_api.key}", "Accept": "application/json, text/event-stream"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    first = requests.post(f"{asgi_api.base_url}/mcp", json=ping, headers=headers, timeout=30)
    assert first.status_code != 429, first.text
    refused = requests.post(f"{asgi_api.base_url}/mcp", json=ping, headers=headers, timeout=30)
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 10
    assert "6 requests a minute" in refused.json()["error"]["message"]


def test_the_openai_client_gets_its_own_rate_limit_error(asgi_server, bot, kb, fake_llm, settings):
    """Through the chat proxy the real ``openai`` client raises RateLimitError: OpenAI's shape (type ``requests``,
    code ``rate_limit_exceeded``) with Retry-After; the request never reaches the upstream."""
    settings.PROXY_MODELS = {"gpt-test": "fake-model"}
    KnowledgeBase.objects.filter(pk=kb.pk).update(records_chat=True)
    limit(bot, 6)
    client = openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key=key_issue(bot)[1], max_retries=0)
    fake_llm.reply_raw("Hello.")
    messages = [{"role": "user", "content": "Hi"}]
    assert client.chat.completions.create(model="gpt-test", messages=messages).choices[0].message.content == "Hello."
    sent = len(fake_llm.requests)
    with pytest.raises(openai.RateLimitError) as raised:
        client.chat.completions.create(model="gpt-test", messages=messages)
    error = raised.value
    assert error.status_code == 429 and 1 <= int(error.response.headers["Retry-After"]) <= 10
    assert error.body["type"] == "requests" and error.body["code"] == "rate_limit_exceeded"
    assert "6 requests a minute" in error.body["message"]
    assert len(fake_llm.requests) == sent
    anthropic_shape = requests.post(
        f"{asgi_server.url}/anthropic/v1/messages",
        headers={"x-api-key": client.api_key},
        json={"model": "m", "max_tokens": 5, "messages": messages},
        timeout=30,
    )
    assert anthropic_shape.status_code == 429 and anthropic_shape.json()["error"]["type"] == "rate_limit_error"
    assert refused_today(bot) == 2
