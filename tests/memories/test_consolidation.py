"""Consolidation: insights linked to the memories they connect, validated, scheduled per always-on KB."""

from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import connection
from django_q.models import Schedule

from kbsite.locks import Lock
from kbsite.models import JobRun
from memories import consolidation
from memories.models import Insight, Memory
from memories.schedules import ensure_schedules
from tests.conftest import run_queued_tasks
from tests.factories import KnowledgeBaseFactory, MemoryFactory


@pytest.fixture
def three(kb):
    return [
        MemoryFactory(kb=kb, text="Alice started training for the Berlin marathon.", entities=["alice", "berlin"]),
        MemoryFactory(kb=kb, text="Alice hurt her knee in March.", entities=["alice"]),
        MemoryFactory(kb=kb, text="Bob prefers tea.", entities=["bob"]),
    ]


def consolidate(api):
    response = api.post("/api/v1/kbs/notes/consolidate/")
    assert response.status_code == 202, response.text
    run_queued_tasks()
    return JobRun.objects.get(pk=response.json()["job_id"])


def test_llm_insights_are_linked_to_their_memories(api, three, fake_llm):
    """Each insight links exactly the memories it names; the batch is marked consolidated; tokens recorded."""
    a, b, c = three
    fake_llm.reply_json(
        {"insights": [{"text": "Alice's knee injury may affect her marathon training.", "memory_ids": [a.pk, b.pk]}]},
        tokens_in=300,
        tokens_out=40,
    )
    run = consolidate(api)
    assert (run.status, run.facts_added, run.items_read, run.tokens_in, run.tokens_out, run.mode) == (
        "succeeded",
        1,
        3,
        300,
        40,
        "llm",
    )
    insight = Insight.objects.get()
    assert sorted(insight.memories.values_list("id", flat=True)) == [a.pk, b.pk]
    assert insight.embedding is not None and insight.job_run == run
    assert Memory.objects.filter(consolidated=True).count() == 3
    assert f"{a.pk} | fact | Alice started training" in fake_llm.user_prompt()
    body = api.get("/api/v1/kbs/notes/insights/").json()["results"]
    assert body[0]["memory_ids"] == [a.pk, b.pk]
    recalled = api.post("/api/v1/kbs/notes/recall/", json={"query": "Alice knee marathon", "kinds": ["insight"]})
    assert [r["id"] for r in recalled.json()["results"]] == [insight.pk]


@pytest.mark.parametrize("bad_ids", [[999999], "outside-kb"])
def test_ids_outside_the_batch_are_rejected(api, three, fake_llm, bad_ids):
    """An insight citing a memory that was not in the batch fails validation; nothing is stored."""
    a, _, _ = three
    if bad_ids == "outside-kb":
        bad_ids = [MemoryFactory(kb=KnowledgeBaseFactory(name="elsewhere")).pk]
    for _ in range(3):
        fake_llm.reply_json({"insights": [{"text": "Made up.", "memory_ids": [a.pk, *bad_ids]}]})
    run = consolidate(api)
    assert run.status == "failed" and "outside the batch" in run.error
    assert Insight.objects.count() == 0
    assert Memory.objects.filter(consolidated=True).count() == 0


def test_failure_leaves_memories_unconsolidated(api, three, fake_llm):
    """When the model keeps failing, the run is failed and the memories wait for the next run."""
    for _ in range(3):
        fake_llm.reply_status(500)
    run = consolidate(api)
    assert run.status == "failed" and "500" in run.error
    assert Memory.objects.filter(consolidated=False).count() == 3
    fake_llm.reply_json({"insights": []})
    assert consolidate(api).status == "succeeded"


def test_fewer_than_two_new_memories_does_nothing(api, kb, fake_llm):
    """With one unconsolidated memory the run is skipped without an LLM call."""
    MemoryFactory(kb=kb)
    run = consolidate(api)
    assert run.status == "skipped" and fake_llm.calls == 0


def test_offline_insights_group_memories_by_shared_entities(api, three):
    """Offline: memories sharing an entity become a plainly worded heuristic insight."""
    a, b, _ = three
    run = consolidate(api)
    assert run.status == "succeeded" and run.mode == "heuristic"
    insight = Insight.objects.get()
    assert insight.mode == "heuristic" and "about alice" in insight.text
    assert sorted(insight.memories.values_list("id", flat=True)) == [a.pk, b.pk]


def test_runs_of_one_kb_never_overlap(kb, three, transactional_db):
    """While another process holds the KB's consolidation lock, a second run is skipped."""
    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or None,
        autocommit=True,
    )
    try:
        other.execute("SELECT pg_advisory_lock(%s, %s)", [Lock.CONSOLIDATE, kb.pk])
        job = JobRun.objects.create(kb=kb, kind="consolidate")
        result = []
        thread = threading.Thread(target=lambda: result.append(consolidation.kb_consolidate(job=job).status))
        thread.start()
        thread.join()
        assert result == ["skipped"] and Insight.objects.count() == 0
        # Released before the next run, not left to the server's end of the closed session (which comes after
        # close() returns: the next run was seen skipped once).
        other.execute("SELECT pg_advisory_unlock(%s, %s)", [Lock.CONSOLIDATE, kb.pk])
    finally:
        other.close()
    assert consolidation.kb_consolidate(job=JobRun.objects.create(kb=kb, kind="consolidate")).status == "succeeded"


def test_schedules_follow_the_kb(api):
    """Always-on turns the schedule on at the KB's interval; changes update it; off, inactive or deleted remove it."""
    api.post("/api/v1/kbs/", json={"name": "diary", "always_on": True, "consolidate_interval_minutes": 15})
    schedule = Schedule.objects.get(name__startswith="consolidate-kb-")
    assert schedule.minutes == 15 and schedule.func == "memories.tasks.consolidate_kb"
    api.patch("/api/v1/kbs/diary/", json={"consolidate_interval_minutes": 5})
    assert Schedule.objects.get(pk=schedule.pk).minutes == 5
    api.patch("/api/v1/kbs/diary/", json={"always_on": False})
    assert not Schedule.objects.filter(name__startswith="consolidate-kb-").exists()
    api.patch("/api/v1/kbs/diary/", json={"always_on": True})
    api.patch("/api/v1/kbs/diary/", json={"is_active": False})
    assert not Schedule.objects.filter(name__startswith="consolidate-kb-").exists()
    api.patch("/api/v1/kbs/diary/", json={"is_active": True})
    assert Schedule.objects.filter(name__startswith="consolidate-kb-").count() == 1
    api.delete("/api/v1/kbs/diary/")
    assert not Schedule.objects.filter(name__startswith="consolidate-kb-").exists()


def test_migrating_or_restarting_never_duplicates_schedules(kb):
    """ensure_schedules (run after every migrate) is idempotent."""
    ensure_schedules()
    ensure_schedules()
    assert Schedule.objects.filter(name=consolidation.schedule_name(kb)).count() == 1
    assert Schedule.objects.filter(name="inbox-scan").count() == 1


def test_admin_action_queues_a_run_and_pages_show_links(admin_client, three):
    """The admin can consolidate now; an insight's page lists its memories and a memory's page its insights."""
    from django.urls import reverse

    a, b, _ = three
    response = admin_client.post(
        reverse("admin:kbsite_knowledgebase_changelist"),
        {"action": "consolidate_now", "_selected_action": [a.kb.pk]},
        follow=True,
    )
    assert response.status_code == 200
    run_queued_tasks()
    insight = Insight.objects.get()
    page = admin_client.get(reverse("admin:memories_insight_change", args=[insight.pk])).content.decode()
    assert a.text in page and b.text in page
    page = admin_client.get(reverse("admin:memories_memory_change", args=[a.pk])).content.decode()
    assert insight.text[:40] in page


def test_memories_deleted_while_the_llm_thinks_are_not_linked(live_server, api, three, fake_llm):
    """A memory deleted (or retired) between reading the batch and storing the insights is not linked, an insight
    left with one memory is dropped, and the run succeeds instead of failing on a foreign key."""
    a, b, c = three
    deleted = []
    # While the job waits for the LLM's answer, a client deletes a memory of the batch through the API (another
    # request, its own connection, committed).
    fake_llm.meanwhile(lambda: deleted.append(api.delete(f"/api/v1/kbs/notes/memories/{a.pk}/").status_code))
    fake_llm.reply_json(
        {
            "insights": [
                {"text": "Alice's knee injury may affect her marathon training.", "memory_ids": [a.pk, b.pk]},
                {"text": "Everyone here drinks something.", "memory_ids": [a.pk, b.pk, c.pk]},
            ]
        }
    )
    run = consolidate(api)
    assert deleted == [204] and not Memory.objects.filter(pk=a.pk).exists()
    assert run.status == "succeeded" and run.facts_added == 1
    insight = Insight.objects.get()
    assert insight.text == "Everyone here drinks something."
    assert sorted(insight.memories.values_list("id", flat=True)) == [b.pk, c.pk]
