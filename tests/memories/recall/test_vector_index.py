"""Small KBs are searched exactly, outside the approximate vector index; a KB that outgrows
VECTOR_INDEX_MIN_MEMORIES moves into it, and recall finds memories on both sides of the line."""

from __future__ import annotations

from django_q.models import OrmQ

from kbsite.ai import embeddings
from kbsite.models import KnowledgeBase
from memories import services
from memories.models import Memory
from tests.conftest import run_queued_tasks


def post(api, messages, session="s1"):
    response = api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "messages": messages})
    assert response.status_code == 202, response.text
    run_queued_tasks()


def turn(ext, content):
    return {"external_id": ext, "speaker": "Caroline", "content": content, "created_at": "2023-05-08T13:56:00Z"}


TWO_TURNS = [turn("t1", "I adopted a golden retriever puppy last spring."), turn("t2", "I paint sunsets at the lake.")]


def vector_hits(api, query):
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": query, "k": 10})
    assert response.status_code == 200, response.text
    return [r["text"] for r in response.json()["results"] if "vector" in r["signals"]]


def in_index(kb):
    return dict(Memory.objects.filter(kb=kb).values_list("text", "in_vector_index"))


def test_a_small_kb_is_stored_outside_the_vector_index_and_found_exactly(api, kb):
    post(api, [turn("t1", "I adopted a golden retriever puppy last spring.")])
    memory = Memory.objects.get(kb=kb)
    assert memory.embedding is not None and not memory.in_vector_index
    kb.refresh_from_db()
    assert not kb.vector_index
    # No word in common with the memory: only the vector side can find it.
    assert vector_hits(api, "Which dog did she get?") == [memory.text]


def test_a_kb_that_outgrows_exact_search_moves_into_the_vector_index(api, kb, settings, monkeypatch):
    settings.VECTOR_INDEX_MIN_MEMORIES = 3
    post(api, TWO_TURNS)
    kb.refresh_from_db()
    assert not kb.vector_index and not any(in_index(kb).values())

    post(api, [turn("t3", "My sister moved to Lisbon for a new job.")], session="s2")
    kb.refresh_from_db()
    assert kb.vector_index and all(in_index(kb).values()) and len(in_index(kb)) == 3

    # Later memories go straight into the index (not moved in afterwards), and recall finds them through it.
    monkeypatch.setattr(services, "kb_vector_index_if_due", lambda kb: 0)
    post(api, [turn("t4", "I started learning the cello in March.")], session="s3")
    assert in_index(kb)["Caroline: I started learning the cello in March."] is True
    assert vector_hits(api, "Which dog did she get?")[0] == "Caroline: I adopted a golden retriever puppy last spring."
    assert vector_hits(api, "What musical instrument is she studying?")[0] == (
        "Caroline: I started learning the cello in March."
    )


def test_recall_finds_memories_of_an_indexed_kb_written_outside_ingest_and_they_move_in(api, kb, settings):
    """A memory a bot adds directly (the memory_add tool) is found, exactly, before it joins the index; the job
    that embeds it moves it in."""
    settings.VECTOR_INDEX_MIN_MEMORIES = 2
    post(api, TWO_TURNS)
    kb.refresh_from_db()
    assert kb.vector_index
    added, _ = services.memory_add(kb=kb, text="Caroline is allergic to peanuts.")  # queues its embedding
    assert not added.in_vector_index
    Memory.objects.filter(pk=added.pk).update(embedding=embeddings.embed([added.text])[0])
    # Both sides in one ranking: the memory outside the index and the ones in it.
    hits = vector_hits(api, "Does she have any food allergies?")
    assert hits[0] == "Caroline is allergic to peanuts."
    assert "Caroline: I adopted a golden retriever puppy last spring." in vector_hits(api, "Which dog did she get?")

    run_queued_tasks()  # the embedding job memory_add queued
    assert in_index(kb)["Caroline is allergic to peanuts."] is True
    assert vector_hits(api, "Does she have any food allergies?")[0] == "Caroline is allergic to peanuts."


def test_clearing_a_kb_returns_it_to_exact_search(api, kb, settings):
    settings.VECTOR_INDEX_MIN_MEMORIES = 1
    post(api, [turn("t1", "I adopted a golden retriever puppy last spring.")])
    kb.refresh_from_db()
    assert kb.vector_index
    services.kb_clear(kb=kb)
    assert not KnowledgeBase.objects.get(pk=kb.pk).vector_index


def test_a_kb_below_the_line_is_not_moved(kb, settings):
    settings.VECTOR_INDEX_MIN_MEMORIES = 2
    Memory.objects.create(kb=kb, text="Alice plays the violin.")
    assert services.kb_vector_index_if_due(kb=kb) == 0
    Memory.objects.create(kb=kb, text="Alice lives in Berlin.")
    assert services.kb_vector_index_if_due(kb=kb) == 2
    assert KnowledgeBase.objects.get(pk=kb.pk).vector_index


def test_near_duplicates_of_an_indexed_kb_are_found_on_both_sides_of_the_index(api, kb, settings):
    """Ingest in a KB in the vector index skips a fact nearly identical to a memory still outside the index (written
    by memory_add, its embedding job not yet run) as well as one nearly identical to an indexed memory."""
    settings.VECTOR_INDEX_MIN_MEMORIES = 2
    post(api, TWO_TURNS)
    kb.refresh_from_db()
    assert kb.vector_index
    added, _ = services.memory_add(kb=kb, text="Caroline: I'm allergic to peanuts.")
    OrmQ.objects.all().delete()  # its embedding job, which would move it into the index, has not run yet
    Memory.objects.filter(pk=added.pk).update(embedding=embeddings.embed([added.text])[0])
    post(api, [turn("t3", "I am allergic to peanuts."), turn("t4", "I adopted a golden-retriever puppy last spring.")])
    assert len(in_index(kb)) == 3  # both new facts were near-duplicates


def test_a_recall_narrower_than_its_kbs_index_does_not_count_the_kb_again(api, kb):
    """A scope with fewer rows in the index than the KB's size promised (here: two preferences among 70 facts)
    scans the index again; the KB's size stays known, not counted again by every such recall."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for n in range(70):
        Memory.objects.create(kb=kb, text=f"Caroline planted {n} tulips in the garden.", in_vector_index=True)
    for text in ("Caroline prefers tea to coffee.", "Caroline likes quiet mornings."):
        Memory.objects.create(kb=kb, text=text, kind="preference", in_vector_index=True)
    services.memories_embed_missing()
    KnowledgeBase.objects.filter(pk=kb.pk).update(vector_index=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")  # the table's size known, as on a server
    asked = {"query": "What does she drink?", "k": 5, "kinds": ["preference"]}
    assert api.post("/api/v1/kbs/notes/recall/", json=asked).status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        answer = api.post("/api/v1/kbs/notes/recall/", json=asked)
    assert answer.json()["results"][0]["text"] == "Caroline prefers tea to coffee."
    assert not [q for q in ctx.captured_queries if "reltuples" in q["sql"]], "the KB's size was counted again"
