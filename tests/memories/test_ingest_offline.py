"""Offline mode (no LLM): heuristic extraction keeps salient turns, attributed and dated; input API errors."""

from __future__ import annotations

from datetime import UTC, datetime

from memories.models import IngestItem, JobRun, Memory, Message
from tests.conftest import run_queued_tasks


def post(api, messages, session="s1"):
    return api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "messages": messages})


def turn(ext, content, speaker="Caroline", when="2023-05-08T13:56:00Z"):
    return {"external_id": ext, "speaker": speaker, "content": content, "created_at": when}


def test_heuristic_keeps_salient_turns_attributed_and_dated(api, kb):
    """Each salient turn becomes a memory 'Speaker: text', dated by the turn, with entities and topics."""
    response = post(
        api,
        [
            turn("d1", "Hey Mel! Good to see you!"),
            turn("d2", "I went to the LGBTQ support group in Boston yesterday and it was really powerful."),
            turn("d3", "I love painting sunsets with my kids.", speaker="Melanie"),
        ],
    )
    assert response.status_code == 202
    run_queued_tasks()
    memories = {m.text: m for m in Memory.objects.all()}
    assert set(memories) == {
        "Caroline: I went to the LGBTQ support group in Boston yesterday and it was really powerful.",
        "Melanie: I love painting sunsets with my kids.",
    }
    group = memories["Caroline: I went to the LGBTQ support group in Boston yesterday and it was really powerful."]
    assert group.mode == "heuristic" and group.valid_from == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert {"caroline", "lgbtq", "boston"} <= set(group.entities) and group.topics
    assert list(group.source_messages.values_list("external_id", flat=True)) == ["d2"]
    assert memories["Melanie: I love painting sunsets with my kids."].kind == "preference"
    run = JobRun.objects.get()
    assert run.mode == "heuristic" and run.tokens_in == 0 and run.facts_added == 2


def test_kb_says_which_mode_produced_memories(api, kb):
    """The KB reports its extraction mode and how many live memories each mode produced."""
    post(api, [turn("d1", "I adopted a cat named Luna last spring.")])
    run_queued_tasks()
    body = api.get("/api/v1/kbs/notes/").json()
    assert body["extraction_mode"] == "heuristic" and body["heuristic_memory_count"] == 1
    assert body["llm_memory_count"] == 0


def test_reposting_the_same_turns_is_idempotent(api, kb):
    """A re-sent external_id is counted as a duplicate and never stored (or extracted) twice."""
    batch = [turn("d1", "I adopted a cat named Luna last spring."), turn("d2", "She is a grey tabby.")]
    first = post(api, batch).json()
    again = post(api, batch + [turn("d3", "Luna loves sleeping on the piano.")]).json()
    assert (first["accepted"], first["duplicates"]) == (2, 0)
    assert (again["accepted"], again["duplicates"]) == (1, 2)
    within = post(api, [turn("d9", "I play chess on Sundays."), turn("d9", "I play chess on Sundays.")]).json()
    assert (within["accepted"], within["duplicates"]) == (1, 1)
    run_queued_tasks()
    assert Message.objects.count() == 4
    assert Memory.objects.filter(text__contains="Luna last spring").count() == 1


def test_same_external_id_in_another_kb_is_independent(api, kb):
    """Idempotency is per KB."""
    api.post("/api/v1/kbs/", json={"name": "work"})
    batch = {"session_id": "s1", "messages": [turn("d1", "I adopted a cat named Luna.")]}
    assert api.post("/api/v1/kbs/notes/messages/", json=batch).json()["accepted"] == 1
    assert api.post("/api/v1/kbs/work/messages/", json=batch).json()["accepted"] == 1


def test_text_ingest_is_accepted_and_processed(api, kb):
    """POST ingest/ answers 202 with the item, which is then split and turned into memories."""
    text = "Project Falcon ships in March 2025.\n\nThe Falcon team uses PostgreSQL and Django for the backend."
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": text, "source": "meeting-notes"})
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "pending"
    run_queued_tasks()
    item = IngestItem.objects.get()
    assert item.status == "done"
    assert list(Memory.objects.values_list("text", flat=True)) == [text]
    assert all(m.source == "api:meeting-notes" for m in Memory.objects.all())


def test_messages_bad_input_is_a_4xx(api, kb):
    """Missing fields, wrong types, empty batches, blank content and unknown roles are explained."""
    cases = [
        {"messages": [turn("d1", "x")]},
        {"session_id": "s1", "messages": []},
        {"session_id": "s1", "messages": "hello"},
        {"session_id": "s1", "messages": [{"external_id": "d1"}]},
        {"session_id": "s1", "messages": [{"external_id": "d1", "content": "   "}]},
        {"session_id": "s1", "messages": [{"external_id": "d1", "content": "hi", "role": "wizard"}]},
        {"session_id": "s1", "messages": [{"external_id": "d1", "content": "hi", "created_at": "last tuesday"}]},
        {"session_id": ["s1"], "messages": [turn("d1", "x")]},
    ]
    for body in cases:
        response = api.post("/api/v1/kbs/notes/messages/", json=body)
        assert response.status_code == 400, body
        assert response.json()
    assert Message.objects.count() == 0


def test_too_many_messages_in_one_request(api, kb, settings):
    """A batch over MAX_MESSAGES_PER_REQUEST is refused with the limit."""
    batch = [turn(f"d{i}", f"Fact number {i} about Caroline.") for i in range(1001)]
    response = post(api, batch)
    assert response.status_code == 400
    assert "1000" in str(response.json())


def test_ingest_bad_input(api, kb):
    """Empty text, non-string text, unknown KB and an inactive KB are refused with messages."""
    assert api.post("/api/v1/kbs/notes/ingest/", json={"text": ""}).status_code == 400
    assert api.post("/api/v1/kbs/notes/ingest/", json={"text": 42, "source": {}}).status_code == 400
    assert api.post("/api/v1/kbs/nope/ingest/", json={"text": "x"}).status_code == 404
    api.patch("/api/v1/kbs/notes/", json={"is_active": False})
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice likes tea."})
    assert response.status_code == 409 and "inactive" in response.json()["detail"]


def test_ingest_into_another_bots_kb_is_a_404(api, other_kb):
    """Input cannot be posted into another bot's KB."""
    response = api.post("/api/v1/kbs/secret/messages/", json={"session_id": "s", "messages": [turn("d1", "x y z")]})
    assert response.status_code == 404
    assert Message.objects.count() == 0
