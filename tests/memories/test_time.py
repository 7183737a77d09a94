"""Bi-temporal facts (issue 19, finding 4): valid time (when a fact was true in the world) apart from system time
(when kbsite learned it and retired it); recall ``as_of`` is valid time, ``known_at`` system time."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from memories.models import Memory, Message
from tests.conftest import run_queued_tasks


def _post(api, session, turns):
    messages = [
        {"external_id": ext, "role": "user", "speaker": "Alice", "content": text, "created_at": when}
        for ext, text, when in turns
    ]
    assert api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "messages": messages}).ok


def _recalled(api, **params) -> list[str]:
    body = {"query": "Where does Alice live?", "k": 10, **params}
    response = api.post("/api/v1/kbs/notes/recall/", json=body)
    assert response.status_code == 200, response.text
    return [hit["text"] for hit in response.json()["results"] if "lives" in hit["text"]]


def test_a_fact_is_dated_by_its_own_turn_and_its_valid_time_ends_where_its_replacement_begins(api, kb, fake_llm):
    fake_llm.reply_json(
        {
            "add": [
                {"text": "Alice lives in Paris.", "entities": ["alice", "paris"], "source_turns": []},
                {"text": "Alice started pottery classes.", "entities": ["alice"], "source_turns": []},
            ],
            "supersede": [],
            "edges": [],
        }
    )
    _post(api, "2025", [("m1", "I live in Paris.", "2025-03-01T10:00:00Z")])
    run_queued_tasks()
    paris = Memory.objects.get(text="Alice lives in Paris.")
    before_the_move_was_known = timezone.now()
    _post(
        api,
        "2025",
        [
            ("m2", "I moved to Berlin this week.", "2025-09-01T10:00:00Z"),
            ("m3", "And I started pottery classes!", "2025-11-20T10:00:00Z"),
        ],
    )
    ref = {m.external_id: f"m{m.pk}" for m in Message.objects.all()}  # how the model sees the turns
    fake_llm.reply_json(
        {
            "add": [{"text": "Alice started pottery classes.", "source_turns": [ref["m3"]]}],
            "supersede": [{"id": paris.pk, "by_text": "Alice lives in Berlin.", "source_turns": [ref["m2"]]}],
            "edges": [],
        }
    )
    run_queued_tasks()
    berlin = Memory.objects.get(text="Alice lives in Berlin.")
    paris.refresh_from_db()

    # Valid time: from the fact's own source turn (not the batch's last, 20 November), ended by its replacement.
    assert berlin.valid_from == datetime(2025, 9, 1, 10, tzinfo=UTC)
    assert paris.valid_from == datetime(2025, 3, 1, 10, tzinfo=UTC)
    assert paris.valid_to == berlin.valid_from
    # System time: learned at ingest, retired when the newer fact arrived.
    assert paris.retired_at > before_the_move_was_known and paris.created_at < before_the_move_was_known

    assert _recalled(api, as_of="2025-06-01T00:00:00Z") == ["Alice lives in Paris."]
    assert _recalled(api, as_of="2025-10-01T00:00:00Z") == ["Alice lives in Berlin."]
    assert _recalled(api, as_of="2025-01-01T00:00:00Z") == []  # she lived nowhere we know of yet
    assert _recalled(api) == ["Alice lives in Berlin."]
    # What kbsite knew before the move was told: Paris, then and in October.
    known = before_the_move_was_known.isoformat()
    assert _recalled(api, known_at=known) == ["Alice lives in Paris."]
    assert _recalled(api, as_of="2025-10-01T00:00:00Z", known_at=known) == ["Alice lives in Paris."]

    body = api.get(f"/api/v1/kbs/notes/memories/{paris.pk}/").json()
    assert body["valid_to"] == "2025-09-01T10:00:00Z" and body["retired_at"] is not None


def test_a_corrected_wording_was_never_true_as_worded(api, kb, fake_llm):
    fake_llm.reply_json(
        {"add": [{"text": "Alice lives in Pariss.", "source_turns": ["@1"]}], "supersede": [], "edges": []}
    )
    _post(api, "s", [("m1", "I live in Paris.", "2025-03-01T10:00:00Z")])
    run_queued_tasks()
    typo = Memory.objects.get()
    fixed = api.patch(f"/api/v1/kbs/notes/memories/{typo.pk}/", json={"text": "Alice lives in Paris."}).json()
    assert fixed["valid_from"] == "2025-03-01T10:00:00Z"  # the version keeps the fact's valid time
    typo.refresh_from_db()
    assert typo.valid_to is None and typo.retired_reason == "edited"
    assert _recalled(api, as_of="2025-06-01T00:00:00Z") == ["Alice lives in Paris."]
