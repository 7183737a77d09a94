"""Usage in every answer (issue 32): recall, context and ask answer with what they spent, jobs carry theirs, and each
bot's daily usage per KB and end user is in GET /api/v1/usage/ and on the dashboard."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from kbsite.ai import embeddings, usage
from kbsite.keys import key_issue
from kbsite.models import EndUser, JobRun
from kbsite.models.stats import DailyUsage
from kbsite.stats import usage_add
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks
from tests.factories import MemoryFactory

FIGURES = {"llm_calls", "tokens_in", "tokens_out", "embeddings", "server_ms"}


@pytest.fixture
def alice(kb):
    """End user alice of the bot, with a fact of hers and a shared one, embedded."""
    alice = EndUser.objects.seen(kb.bot, "alice")
    MemoryFactory(kb=kb, end_user=alice, text="Alice lives in Lisbon.")
    MemoryFactory(kb=kb, text="The office is closed on Fridays.")
    memories_embed_missing()
    return alice


def spent(response) -> dict:
    assert response.status_code == 200, response.text
    figures = response.json()["usage"]
    assert set(figures) == FIGURES and figures["server_ms"] >= 0
    return {name: n for name, n in figures.items() if name != "server_ms"}


def today(**filters) -> DailyUsage:
    return DailyUsage.objects.get(day=timezone.now().date(), **filters)


def test_recall_answers_with_its_usage_and_counts_it_for_the_kb_and_user(api, kb, alice):
    """Offline, a recall spends no LLM call and embeds one text (its query, on recall's embedding thread); the day's
    usage of the bot for that KB and end user holds the same figures."""
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": "Where does Alice live?", "user_id": "alice"})
    assert spent(response) == {"llm_calls": 0, "tokens_in": 0, "tokens_out": 0, "embeddings": 1}
    row = today(bot=kb.bot, kb=kb, end_user=alice)
    assert (row.requests, row.embeddings, row.llm_calls) == (1, 1, 0)
    assert row.server_ms == response.json()["usage"]["server_ms"]


def test_ask_with_an_llm_counts_the_fake_llms_tokens(api, kb, alice, fake_llm):
    """An answer by the LLM: one call, and the tokens the (fake) LLM said it used, 120 in and 30 out; they are in
    the day's usage of the KB and the user too."""
    fake_llm.reply_json({"answer": "In Lisbon.", "citations": []}, tokens_in=120, tokens_out=30)
    response = api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice live?", "user_id": "alice"})
    figures = spent(response)
    assert response.json()["mode"] == "llm"
    assert (figures["llm_calls"], figures["tokens_in"], figures["tokens_out"]) == (1, 120, 30)
    assert figures["embeddings"] >= 1
    row = today(bot=kb.bot, kb=kb, end_user=alice)
    assert (row.requests, row.llm_calls, row.tokens_in, row.tokens_out) == (1, 1, 120, 30)


def test_ask_counts_every_attempt_of_the_llm(api, kb, alice, fake_llm):
    """A bad reply retried: both calls and both replies' tokens are spent, as the fake LLM counted them."""
    fake_llm.reply_raw("not json", tokens_in=100, tokens_out=7)
    fake_llm.reply_json({"answer": "In Lisbon.", "citations": []}, tokens_in=110, tokens_out=9)
    question = {"question": "Where does Alice live?", "user_id": "alice"}
    figures = spent(api.post("/api/v1/kbs/notes/ask/", json=question))
    assert (figures["llm_calls"], figures["tokens_in"], figures["tokens_out"]) == (2, 210, 16)


def test_the_context_block_answers_with_its_usage_for_the_bots_always_on_kbs(api, kb, alice):
    """The context block spans the always-on KBs: its usage is the bot's for no one KB, and the end user's."""
    response = api.get("/api/v1/context/", params={"query": "Where does Alice live?", "user_id": "alice"})
    figures = spent(response)
    assert figures["llm_calls"] == 0 and figures["embeddings"] >= 1
    row = today(bot=kb.bot, kb=None, end_user=alice)
    assert (row.requests, row.embeddings) == (1, figures["embeddings"])


def test_a_tool_call_answers_with_its_usage(api, kb, alice):
    """A tool call (memory_search, a recall) answers with what it spent: its query embedded, no LLM call; the day's
    usage of the bot for alice (a tool may reach any of the bot's KBs: no one KB's)."""
    call = {"arguments": {"query": "Where does Alice live?"}, "user_id": "alice"}
    figures = spent(api.post("/api/v1/tools/memory_search/", json=call))
    assert figures["llm_calls"] == 0 and figures["embeddings"] >= 1
    assert today(bot=kb.bot, kb=None, end_user=alice).requests == 1


def test_the_recall_consoles_llm_answer_counts_its_tokens_not_a_request(admin_client, kb, alice, fake_llm):
    """The recall console's answer by the LLM: its call and the fake LLM's tokens, and the texts it embedded, are in
    the bot's usage of the KB for alice; an operator's look is no request of the bot's and adds no milliseconds."""
    fake_llm.reply_json({"answer": "In Lisbon.", "citations": []}, tokens_in=120, tokens_out=30)
    query = {"kb": kb.pk, "query": "Where does Alice live?", "k": 10, "user_id": "alice"}
    page = admin_client.get(reverse("admin:kbsite_knowledgebase_recall"), query).content.decode()
    assert "(llm)" in page.split('id="ask-answer"')[1]
    row = today(bot=kb.bot, kb=kb, end_user=alice)
    assert (row.requests, row.llm_calls, row.tokens_in, row.tokens_out, row.server_ms) == (0, 1, 120, 30, 0)
    assert row.embeddings >= 1


def test_a_messages_job_carries_its_usage(api, kb, fake_llm):
    """The job of posted turns: its LLM call and the fake LLM's tokens, the facts it embedded, and its time, in
    GET /api/v1/jobs/{id}/; the day's usage of the KB counts the job."""
    fake_llm.reply_json(
        {
            "add": [
                {"text": "Alice lives in Berlin.", "kind": "fact", "entities": ["alice"], "source_turns": ["@all"]},
                {"text": "Alice works at Acme.", "kind": "fact", "entities": ["alice"], "source_turns": ["@all"]},
            ],
            "supersede": [],
            "edges": [],
        }
    )
    messages = [{"external_id": "m1", "role": "user", "content": "I live in Berlin and work at Acme."}]
    posted = api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "messages": messages})
    assert posted.status_code == 202, posted.text
    run_queued_tasks()
    job = JobRun.objects.get(kind="ingest_messages")
    body = api.get(f"/api/v1/jobs/{job.pk}/").json()
    figures = body["usage"]
    assert (figures["llm_calls"], figures["tokens_in"], figures["tokens_out"]) == (1, 120, 30)
    assert figures["embeddings"] >= 2 and figures["server_ms"] >= 0
    row = today(bot=kb.bot, kb=kb, end_user=None)
    assert (row.jobs, row.llm_calls, row.tokens_in, row.tokens_out) == (1, 1, 120, 30)
    assert row.embeddings == figures["embeddings"]


def test_a_text_job_carries_its_usage_and_counts_for_its_end_user(api, kb, fake_llm):
    """The job of a text posted for alice: the fake LLM's tokens in GET /api/v1/jobs/{id}/, and the day's usage of
    the KB for alice (the text is hers)."""
    fake_llm.reply_json(
        {
            "add": [{"text": "Alice plays chess.", "kind": "fact", "entities": ["alice"], "source_turns": ["@all"]}],
            "supersede": [],
            "edges": [],
        },
        tokens_in=90,
        tokens_out=12,
    )
    posted = api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice plays chess on Sundays.", "user_id": "alice"})
    assert posted.status_code == 202, posted.text
    run_queued_tasks()
    figures = api.get(f"/api/v1/jobs/{posted.json()['job_id']}/").json()["usage"]
    assert (figures["llm_calls"], figures["tokens_in"], figures["tokens_out"]) == (1, 90, 12)
    row = today(bot=kb.bot, kb=kb, end_user=EndUser.objects.get(bot=kb.bot, external_id="alice"))
    assert (row.jobs, row.llm_calls, row.tokens_in, row.tokens_out) == (1, 1, 90, 12)


def test_a_queued_job_has_no_usage_yet(api, kb):
    """Until a job has run, its usage is null."""
    messages = [{"external_id": "m1", "role": "user", "content": "I live in Berlin."}]
    api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "messages": messages})
    job = JobRun.objects.get(kind="ingest_messages")
    assert api.get(f"/api/v1/jobs/{job.pk}/").json()["usage"] is None


def test_with_accounting_off_answers_carry_no_usage_and_nothing_is_counted(api, kb, alice, settings):
    """USAGE_ACCOUNTING off: recall answers without ``usage`` and no daily usage is kept."""
    settings.USAGE_ACCOUNTING = False
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": "Where does Alice live?"})
    assert response.status_code == 200 and "usage" not in response.json()
    assert not DailyUsage.objects.exists()


def test_a_refused_request_counts_nothing(api, kb):
    """A 400 answers as before, without usage, and is not counted."""
    response = api.post("/api/v1/kbs/notes/recall/", json={"k": 3})
    assert response.status_code == 400 and "usage" not in response.json()
    assert not DailyUsage.objects.exists()


def test_the_usage_list_is_the_callers_bots_by_day_kb_and_user(api, other_api, kb, other_kb, alice):
    """GET /api/v1/usage/: the bot's rows only, newest day first, filtered by from/to, kb and user_id."""
    bot = kb.bot
    yesterday = timezone.now().date() - timedelta(days=1)
    DailyUsage.objects.create(day=yesterday, bot=bot, kb=kb, requests=4, embeddings=4)
    usage_add(bot_id=bot.pk, kb_id=kb.pk, end_user_id=alice.pk, requests=1, llm_calls=1, tokens_in=120, tokens_out=30)
    usage_add(bot_id=other_kb.bot_id, kb_id=other_kb.pk, requests=9)
    rows = api.get("/api/v1/usage/").json()["results"]
    assert [(r["day"], r["kb"], r["user_id"], r["requests"]) for r in rows] == [
        (timezone.now().date().isoformat(), "notes", "alice", 1),
        (yesterday.isoformat(), "notes", None, 4),
    ]
    assert rows[0]["tokens_in"] == 120 and rows[0]["tokens_out"] == 30
    assert len(api.get("/api/v1/usage/", params={"from": timezone.now().date().isoformat()}).json()["results"]) == 1
    assert len(api.get("/api/v1/usage/", params={"to": yesterday.isoformat()}).json()["results"]) == 1
    assert len(api.get("/api/v1/usage/", params={"user_id": "alice"}).json()["results"]) == 1
    assert len(api.get("/api/v1/usage/", params={"kb": "secret"}).json()["results"]) == 0
    assert [r["requests"] for r in other_api.get("/api/v1/usage/").json()["results"]] == [9]
    assert api.get("/api/v1/usage/", params={"from": "yesterday"}).status_code == 400


def test_an_end_users_key_sees_its_own_usage_only(api, kb, alice):
    """A key of one end user lists its user's usage, and may not name another user."""
    bob = EndUser.objects.seen(kb.bot, "bob")
    usage_add(bot_id=kb.bot_id, kb_id=kb.pk, end_user_id=alice.pk, requests=1)
    usage_add(bot_id=kb.bot_id, kb_id=kb.pk, end_user_id=bob.pk, requests=2)
    usage_add(bot_id=kb.bot_id, kb_id=kb.pk, requests=3)
    _, plain = key_issue(kb.bot, name="alice's app", end_user=alice)
    alices = type(api)(base_url=api.base_url, key=plain, bot=kb.bot)
    assert [r["user_id"] for r in alices.get("/api/v1/usage/").json()["results"]] == ["alice"]
    assert alices.get("/api/v1/usage/", params={"user_id": "bob"}).status_code == 403


def test_usage_adds_up_in_one_row_per_day_kb_and_user(kb, alice):
    """Usage of the same bot, KB and user adds to one row, also where KB and user are none (NULLs are one key)."""
    for _ in range(3):
        usage_add(bot_id=kb.bot_id, requests=1, embeddings=2)
        usage_add(bot_id=kb.bot_id, kb_id=kb.pk, end_user_id=alice.pk, requests=1)
    assert today(bot=kb.bot, kb=None, end_user=None).embeddings == 6
    assert today(bot=kb.bot, kb=kb, end_user=alice).requests == 3
    assert DailyUsage.objects.count() == 2


def test_usage_of_a_deleted_user_is_dropped_not_failed(kb, alice):
    """Usage buffered for an end user erased since is left out; the rest of the statement is written."""
    gone = EndUser.objects.seen(kb.bot, "gone")
    gone_id = gone.pk
    gone.delete()
    usage_add(bot_id=kb.bot_id, end_user_id=gone_id, requests=1)
    assert not DailyUsage.objects.exists()


def test_a_meter_counts_what_runs_in_a_copy_of_its_context_and_the_meters_around_it():
    """Nested meters both count; work on another thread counts only when run in a copy of the caller's context."""
    import contextvars

    with usage.metered() as outer:
        with usage.metered() as inner:
            usage.count(calls=1, tokens_in=5)
        thread = threading.Thread(target=contextvars.copy_context().run, args=(usage.count,), kwargs={"embeddings": 2})
        thread.start()
        thread.join()
        bare = threading.Thread(target=usage.count, kwargs={"embeddings": 100})
        bare.start()
        bare.join()
    assert (inner.calls, inner.tokens_in, inner.embeddings) == (1, 5, 0)
    assert (outer.calls, outer.tokens_in, outer.embeddings) == (1, 5, 2)


def test_embedding_counts_texts(settings):
    """embed() counts each text, embed_query() one."""
    with usage.metered() as meter:
        embeddings.embed(["one", "two", "three"])
        embeddings.embed_query("four")
    assert meter.embeddings == 4


def test_the_dashboard_shows_todays_usage_per_bot(admin_client, kb, alice):
    """The dashboard's usage table sums today's rows per bot."""
    usage_add(bot_id=kb.bot_id, kb_id=kb.pk, end_user_id=alice.pk, requests=2, tokens_in=120)
    usage_add(bot_id=kb.bot_id, requests=1, tokens_in=240)
    page = admin_client.get("/admin/").content.decode()
    table = page.split('id="usage-today"')[1].split("</table>")[0]
    assert "alpha" in table and ">3<" in table and ">360<" in table
