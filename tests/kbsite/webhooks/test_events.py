"""Each event type, emitted where it happens in the product (ingest, supersession, the review queue, retirement,
documents, jobs, erasure) and received, signed, by a real local receiver."""

from __future__ import annotations

import pytest
from django.db import transaction

from kbsite import jobs
from kbsite.models import JobRun
from kbsite.webhooks.events import EventType
from memories import consolidation
from memories.services import memory_add, memory_update
from tests.conftest import run_queued_tasks
from tests.kbsite.webhooks.conftest import register


def post_turns(api, session: str, *texts: str) -> None:
    messages = [{"external_id": f"{session}-{n}", "role": "user", "content": t} for n, t in enumerate(texts)]
    body = {"session_id": session, "user_id": "alice", "messages": messages}
    assert api.post("/api/v1/kbs/notes/messages/", json=body).status_code == 202


def by_type(receiver, type: str) -> list[dict]:
    return [r.event["data"] for r in receiver.received if r.event["type"] == type]


def test_every_event_type_reaches_the_receiver_from_where_it_happens(api, kb, receiver):
    register(api, receiver, list(EventType.values))
    post_turns(api, "first", "I moved to Lisbon in May.", "I am allergic to peanuts.")
    run_queued_tasks()
    created = by_type(receiver, "memory.created")
    assert {d["memory"]["text"] for d in created} >= {"I moved to Lisbon in May.", "I am allergic to peanuts."}
    assert all(d["kb"] == "notes" and d["memory"]["user_id"] == "alice" for d in created)

    post_turns(api, "second", "I live in Porto now.")
    run_queued_tasks()
    (superseded,) = by_type(receiver, "memory.superseded")
    assert superseded["memory"]["text"] == "I moved to Lisbon in May." and "restated" in superseded["reason"]
    porto = next(d["memory"]["id"] for d in by_type(receiver, "memory.created") if "Porto" in d["memory"]["text"])
    assert superseded["superseded_by"] == porto
    (review,) = by_type(receiver, "review.opened")
    assert review["review"]["kind"] == "supersession" and review["review"]["newer"] == porto
    assert review["review"]["id"] and api.get(f"/api/v1/reviews/{review['review']['id']}/").status_code == 200

    peanuts = next(d["memory"]["id"] for d in created if "peanuts" in d["memory"]["text"])
    retire = api.post(f"/api/v1/kbs/notes/memories/{peanuts}/retire/", json={"reason": "wrong", "user_id": "alice"})
    assert retire.status_code == 200, retire.text
    porto_deleted = api.delete(f"/api/v1/kbs/notes/memories/{porto}/", params={"user_id": "alice"})
    assert porto_deleted.status_code == 204, porto_deleted.text
    document = {"content": "# Plans\n\nThe launch is in June.\n"}
    assert api.request("PUT", "/api/v1/kbs/notes/documents/plans/", json=document).status_code == 201
    job = consolidation.enqueue_consolidation(kb=kb)
    jobs.job_fail(job, "the provider was down")
    assert api.delete("/api/v1/users/alice/").status_code in (200, 204)
    run_queued_tasks()

    (retired,) = by_type(receiver, "memory.retired")
    assert retired["memory"]["id"] == peanuts and retired["memory"]["retired_reason"] == "wrong"
    (deleted,) = by_type(receiver, "memory.deleted")
    assert deleted["memory"] == {"id": porto, "user_id": "alice"}
    (indexed,) = by_type(receiver, "document.indexed")
    assert indexed["document"]["slug"] == "plans" and indexed["document"]["chunks"] >= 1
    (failed,) = by_type(receiver, "job.failed")
    assert failed["job"] == job.pk and failed["kind"] == JobRun.Kind.CONSOLIDATE and "down" in failed["error"]
    (erased,) = by_type(receiver, "user.erased")
    assert "alice" not in str(erased) and erased["user_id_sha256"] and erased["counts"]["memories"] >= 2
    # budget.spent needs a budget spent: tests/kbsite/test_budgets.py receives it.
    assert set(receiver.types()) == set(EventType.values) - {EventType.BUDGET_SPENT}
    assert all(r.signed for r in receiver.received)


def test_a_fact_added_or_edited_by_hand_is_told_too(api, kb, receiver):
    """memory_add (the bot's tool, the admin): memory.created; an edit: the new version created, the old superseded
    by it; a change rolled back tells no one."""
    register(api, receiver, ["memory.created", "memory.superseded"])
    memory, _ = memory_add(kb=kb, text="The office opens at nine.")
    version = memory_update(memory=memory, data={"text": "The office opens at ten."})
    with pytest.raises(RuntimeError), transaction.atomic():
        memory_add(kb=kb, text="Never stored.")
        raise RuntimeError("rolled back")
    run_queued_tasks()
    assert receiver.types() == ["memory.created", "memory.created", "memory.superseded"]
    created, edited, superseded = (r.event["data"] for r in receiver.received)
    assert created["memory"]["id"] == memory.pk and edited["memory"]["id"] == version.pk
    assert superseded["memory"]["id"] == memory.pk and superseded["superseded_by"] == version.pk
