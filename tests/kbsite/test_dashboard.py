"""The operators' dashboard (the admin index, issue 20): its counts and daily figures from a populated database,
kept as things happen (turns, recalls, jobs and their LLM use), the failure banner with a retry of every failed
job, and a number of queries that does not grow with the KBs or the rows listed (dashboard and main lists)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from kbsite.models import DailyStat, EndUser, JobRun, KnowledgeBase
from kbsite.stats import stats_add, stats_series
from knowledge.models import Document
from memories.ingest import messages_receive, text_receive
from memories.models import Insight
from tests.conftest import run_queued_tasks, wait_for
from tests.factories import BotFactory, KnowledgeBaseFactory, MemoryFactory, MessageFactory


def series_of(page: str) -> dict:
    found = re.search(r'<script id="dash-series" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def card(page: str, label: str) -> int:
    found = re.search(r'<span class="n">(\d+)</span>' + re.escape(label), page)
    assert found, label
    return int(found.group(1))


def test_the_dashboard_shows_a_populated_database(admin_client, kb, fake_llm):
    MemoryFactory(kb=kb, text="Alice lives in Berlin.")
    MemoryFactory(kb=kb, text="Alice lives in Paris.").retire(reason="moved")
    MemoryFactory(kb=kb, text="Her password is hunter22.", quarantined=True, quarantine_reason="secret")
    turns = [{"external_id": f"m{i}", "role": "user", "content": f"I like tea number {i}."} for i in range(3)]
    messages_receive(kb=kb, session_id="s1", messages=turns)  # 3 turns, their extraction queued
    fake_llm.reply_json(
        {"add": [{"text": "Alice likes tea.", "kind": "preference", "source_turns": ["@all"]}], "supersede": []},
        tokens_in=100,
        tokens_out=20,
    )
    run_queued_tasks()
    failed = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_TEXT, status=JobRun.Status.FAILED, error="boom")

    page = admin_client.get(reverse("admin:index")).content.decode()
    assert card(page, "live memories") == 2  # Berlin and the new fact about tea
    assert card(page, "retired") == 1 and card(page, "quarantined") == 1
    assert card(page, "jobs failed") == 1 and "1 failed jobs" in page  # the banner
    assert 'id="retry-failed"' in page and "chart.umd.min.js" in page
    series = series_of(page)
    assert len(series["days"]) == 30 and series["days"][-1] == timezone.now().date().isoformat()
    assert series["turns"][-1] == 3 and series["facts_added"][-1] == 1
    assert series["llm_calls"][-1] == 1 and series["tokens_in"][-1] == 100 and series["tokens_out"][-1] == 20
    assert series["jobs_succeeded"][-1] >= 1
    # The retry button retries every failed job in view; the input is queued again.
    form = re.search(r'<form method="post" action="([^"]+)">', page).group(1)
    response = admin_client.post(
        form.replace("&amp;", "&"), {"action": "retry", "select_across": "1", "index": "0", "_selected_action": "0"}
    )
    assert response.status_code == 302
    failed.refresh_from_db()
    assert failed.status == JobRun.Status.RETRIED


def test_recalls_and_received_items_are_counted_per_kb_and_day(api, kb, other_kb):
    assert (
        api.post(f"/api/v1/kbs/{kb.name}/ingest/", json={"text": "Alice lives in Berlin.", "source": "crm"}).status_code
        == 202
    )
    api.post(f"/api/v1/kbs/{kb.name}/recall/", json={"query": "where does Alice live"})
    api.post(f"/api/v1/kbs/{kb.name}/recall/", json={"query": "Berlin"})
    mine = stats_series([kb.pk])
    assert mine["recalls"][-1] == 2 and mine["texts"][-1] == 1
    assert stats_series([other_kb.pk])["recalls"][-1] == 0


def test_a_statistic_never_breaks_what_it_counts(kb):
    stats_add(kb.pk, turns=2)
    stats_add([kb.pk], turns=3, recalls=1)
    stats_add(999_999, turns=1)  # no such KB: logged and dropped, no exception
    row = DailyStat.objects.get(kb=kb)
    assert (row.turns, row.recalls) == (5, 1)
    with pytest.raises(ValueError):
        stats_add(kb.pk, nonsense=1)


def test_one_end_users_dashboard_counts_their_rows(admin_client, kb):
    alice = EndUser.objects.create(bot=kb.bot, external_id="alice")
    MemoryFactory(kb=kb, end_user=alice, text="Alice likes tea.")
    MemoryFactory(kb=kb, text="The office opens at nine.")  # shared: not hers
    page = admin_client.get(reverse("admin:index"), {"end_user": alice.pk}).content.decode()
    assert card(page, "live memories") == 1 and "End user <strong>alice</strong>" in page
    assert series_of(page)["facts_added"][-1] == 1


def test_jobs_waiting_on_stopped_workers_raise_the_banner(admin_client, kb):
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_TEXT)
    JobRun.objects.filter(pk=job.pk).update(created_at=timezone.now() - timezone.timedelta(minutes=30))
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "are the workers running?" in page


def queries(client, url: str, params: dict | None = None) -> int:
    client.get(url, params)  # warm: the session, the content types, the counts' cache
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, params).status_code == 200
    return len(captured)


def test_the_dashboards_queries_do_not_grow_with_the_kbs(admin_client, db):
    bot = BotFactory()
    KnowledgeBaseFactory(bot=bot)
    one = queries(admin_client, reverse("admin:index"))
    for _ in range(6):
        MemoryFactory(kb=KnowledgeBaseFactory(bot=BotFactory()))
    cache.clear()
    assert queries(admin_client, reverse("admin:index")) == one
    # The 30 days of requests refused by the rate limit are one more, a query for all bots; so are the bots' LLM
    # budgets with their tokens of today, and the state of the stored vectors (re-embedding or not).
    assert one <= 11, one


MAIN_LISTS = [
    ("admin:memories_memory_changelist", {}),
    ("admin:kbsite_knowledgebase_changelist", {}),
    ("admin:kbsite_jobrun_changelist", {}),
    ("admin:kbsite_enduser_changelist", {}),
    ("admin:memories_session_changelist", {}),
    ("admin:memories_message_changelist", {}),
    ("admin:memories_insight_changelist", {}),
    ("admin:knowledge_document_changelist", {}),
]


@pytest.mark.parametrize(("name", "params"), MAIN_LISTS, ids=[n.split(":")[1] for n, _ in MAIN_LISTS])
def test_the_main_lists_make_no_query_per_row(admin_client, db, name, params):
    def add_rows(n: int) -> None:
        for _ in range(n):
            kb = KnowledgeBaseFactory(bot=BotFactory())
            user = EndUser.objects.create(bot=kb.bot, external_id="someone")
            MemoryFactory(kb=kb, end_user=user)
            MessageFactory(session__kb=kb, session__end_user=user)
            text_receive(kb=kb, text="Alice lives in Berlin.", source="crm")
            Insight.objects.create(kb=kb, end_user=user, text="An insight.")
            Document.objects.create(kb=kb, end_user=user, slug="doc", content="# Doc")

    add_rows(1)
    one = queries(admin_client, reverse(name), params)
    add_rows(5)
    assert queries(admin_client, reverse(name), params) == one
    assert KnowledgeBase.objects.count() == 6


def test_a_web_process_buffers_its_counts_and_writes_them_together(db, monkeypatch):
    """Buffered (as in a web process), counts wait in memory and are written by one statement: summed per KB and
    day, a KB deleted in between left out and the others written."""
    from collections import Counter, defaultdict

    from kbsite import stats

    monkeypatch.setattr(stats, "_buffer", defaultdict(Counter))
    kept, gone = KnowledgeBaseFactory(), KnowledgeBaseFactory()
    stats.stats_add(kept.pk, recalls=1)
    stats.stats_add([kept.pk, gone.pk], recalls=2, turns=3)
    assert not DailyStat.objects.exists()
    gone.delete()
    stats.stats_flush()
    row = DailyStat.objects.get()
    assert (row.kb_id, row.recalls, row.turns) == (kept.pk, 3, 3)
    stats.stats_flush()  # nothing left to write
    assert DailyStat.objects.get().recalls == 3


def test_buffered_counts_are_written_every_second_by_a_thread(transactional_db, monkeypatch):
    from kbsite import stats

    monkeypatch.setattr(stats, "_buffer", None)
    kb = KnowledgeBaseFactory()
    stats.stats_buffered(seconds=0.05)
    try:
        stats.stats_add(kb.pk, recalls=4)
        wait_for(lambda: DailyStat.objects.filter(kb=kb, recalls=4).exists(), 10, "the counts to be written")
    finally:
        monkeypatch.setattr(stats, "_buffer", None)  # the thread then has nothing to write
