"""Knowledge-base endpoints: create, read with counts, update, delete, clear; bad input is a 4xx."""

from __future__ import annotations

from kbsite.models import JobRun, KnowledgeBase
from tests.factories import InsightFactory, MemoryFactory, MessageFactory, SessionFactory


def test_create_and_read_kb_with_counts(api):
    """A created KB comes back with its settings and zeroed counts."""
    response = api.post("/api/v1/kbs/", json={"name": "notes", "always_on": True, "consolidate_interval_minutes": 15})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["name"] == "notes" and body["always_on"] is True and body["consolidate_interval_minutes"] == 15
    assert body["memory_count"] == 0 and body["pending_messages"] == 0
    assert KnowledgeBase.objects.get(name="notes").bot == api.bot


def test_counts_reflect_memories_insights_and_pending_turns(api, kb):
    """Counts: live vs retired memories, insights, and turns past the extraction cursor."""
    live = MemoryFactory(kb=kb)
    MemoryFactory(kb=kb).retire(reason="test")
    MemoryFactory(kb=kb, quarantined=True)
    InsightFactory(kb=kb, memories=[live])
    session = SessionFactory(kb=kb)
    first = MessageFactory(session=session)
    MessageFactory(session=session)
    session.extracted_through = first.pk
    session.save()
    MemoryFactory(kb=kb, mode="llm")
    MemoryFactory(kb=kb, mode="llm", quarantined=True)
    MemoryFactory(kb=kb, mode="heuristic")
    body = api.get("/api/v1/kbs/notes/").json()
    assert body["memory_count"] == 5  # live, quarantined ones included (two of them manual)
    assert body["retired_count"] == 1
    assert body["quarantined_count"] == 2
    assert (body["llm_memory_count"], body["heuristic_memory_count"]) == (2, 1)
    assert body["insight_count"] == 1
    assert body["pending_messages"] == 1


def test_list_is_paginated_and_ordered(api):
    """The list is paginated by page_size and ordered by name."""
    for name in ["c-kb", "a-kb", "b-kb"]:
        assert api.post("/api/v1/kbs/", json={"name": name}).status_code == 201
    page1 = api.get("/api/v1/kbs/?page_size=2").json()
    assert page1["count"] == 3 and [k["name"] for k in page1["results"]] == ["a-kb", "b-kb"]
    page2 = api.get(page1["next"].replace(api.base_url, "")).json()
    assert [k["name"] for k in page2["results"]] == ["c-kb"]


def test_update_and_delete(api, kb):
    """PATCH changes settings; DELETE removes the KB."""
    response = api.patch("/api/v1/kbs/notes/", json={"always_on": False, "consolidate_interval_minutes": 5})
    assert response.status_code == 200, response.text
    assert response.json()["always_on"] is False
    assert api.delete("/api/v1/kbs/notes/").status_code == 204
    assert api.get("/api/v1/kbs/notes/").status_code == 404


def test_clear_removes_memories_and_insights_only(api, kb):
    """clear removes memories, insights and entities, keeps messages."""
    memory = MemoryFactory(kb=kb)
    InsightFactory(kb=kb, memories=[memory])
    MessageFactory(session=SessionFactory(kb=kb))
    response = api.post("/api/v1/kbs/notes/clear/")
    assert response.status_code == 200
    assert response.json()["memories"] == 1 and response.json()["insights"] == 1
    assert kb.memories.count() == 0 and kb.messages.count() == 1


def test_duplicate_name_is_refused_with_a_message(api, kb):
    """A second KB with the same name for the same bot is a 400 that names the problem."""
    response = api.post("/api/v1/kbs/", json={"name": "notes"})
    assert response.status_code == 400
    assert "already has a knowledge base named 'notes'" in response.json()["name"][0]


def test_same_name_is_fine_for_another_bot(api, other_kb, other_api):
    """Names are unique per bot, not globally."""
    assert api.post("/api/v1/kbs/", json={"name": "secret"}).status_code == 201


def test_bad_names_are_refused(api):
    """Uppercase, spaces, path tricks and over-long names are 400s with the rule spelt out."""
    for name in ["Notes", "my notes", "../etc", "a" * 65, "-lead", "", "x/y"]:
        response = api.post("/api/v1/kbs/", json={"name": name})
        assert response.status_code == 400, name
        assert "name" in response.json()


def test_malformed_json_is_a_400(api):
    """A body that is not JSON gets a 400 that says so."""
    response = api.post("/api/v1/kbs/", data="{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


def test_wrong_field_types_are_400s(api):
    """Wrong types are named field by field."""
    response = api.post(
        "/api/v1/kbs/", json={"name": "ok", "always_on": "perhaps", "consolidate_interval_minutes": "often"}
    )
    assert response.status_code == 400
    body = response.json()
    assert "always_on" in body and "consolidate_interval_minutes" in body
    response = api.post("/api/v1/kbs/", json={"name": "ok", "consolidate_interval_minutes": 0})
    assert response.status_code == 400 and "consolidate_interval_minutes" in response.json()
    response = api.post("/api/v1/kbs/", json=["name", "ok"])
    assert response.status_code == 400


def test_oversized_body_is_a_413(api, settings):
    """A body over the limit is refused before it is read, with the limit in the message."""
    big = {"name": "big", "description": "x" * (3 * 1024 * 1024)}
    response = api.post("/api/v1/kbs/", json=big)
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]


def test_unknown_kb_is_a_404_with_a_message(api):
    """An unknown KB name says which name was not found."""
    response = api.get("/api/v1/kbs/nope/")
    assert response.status_code == 404
    assert "no knowledge base named 'nope'" in response.json()["detail"]


def test_a_deleted_kb_stays_deleted_when_one_of_its_name_is_made_again(api, kb, settings):
    """Deleting a KB moves its folder (knowledge files, inbox, failed files) to a dated trash folder that no sync
    reads: a new KB of the same name starts empty instead of re-indexing the old files; the files can be restored."""
    from knowledge import services
    from knowledge.models import Document

    (kb.knowledge_dir / "door.md").write_text("# Door\n\nThe door code is 4711.\n")
    (kb.inbox_dir / "pending.txt").write_text("Alice keeps bees.")
    assert api.delete("/api/v1/kbs/notes/").status_code == 204
    assert not kb.folder.exists()
    trashed = list((settings.KBSITE_DATA_DIR / ".trash" / f"bot_{kb.bot_id}").iterdir())
    assert len(trashed) == 1 and trashed[0].name.startswith(f"kb_{kb.pk}-notes-")
    assert (trashed[0] / "knowledge" / "door.md").read_text().endswith("4711.\n")
    assert api.post("/api/v1/kbs/", json={"name": "notes"}).status_code == 201
    new = KnowledgeBase.objects.get(name="notes")
    assert list(new.knowledge_dir.iterdir()) == [] and list(new.inbox_dir.iterdir()) == []
    services.knowledge_sync_all(job=JobRun.objects.create(kind=JobRun.Kind.SYNC))
    assert not Document.objects.filter(kb=new).exists()
