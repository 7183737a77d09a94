"""A French user's memory offline, end to end, posted as the README posts (``user_id`` only): a move and a diet given
up each open a review item, the block shows the old values as what held until then, and ask answers with the new
home; memories stored before French had a reader get their reading from migration 0029. Sentences of our own."""

from __future__ import annotations

from memories.models import ReviewItem
from tests.conftest import run_queued_tasks


def _chat(api, session: str, when: str, *texts: str) -> None:
    turns = [
        {"external_id": f"{session}-{i}", "role": "user", "content": text, "created_at": when}
        for i, text in enumerate(texts)
    ]
    body = {"session_id": session, "user_id": "lea", "messages": turns}
    response = api.post("/api/v1/kbs/notes/messages/", json=body)
    assert response.status_code == 202, response.text
    run_queued_tasks()


def test_a_french_move_and_a_diet_given_up_are_read_as_changes(api, kb):
    """Before French statements were read, "On a déménagé à Angers !" changed nothing: Tours stayed current in the
    block."""
    _chat(api, "s1", "2024-03-01T10:00:00Z", "Coucou, je m'appelle Léa et j'habite à Tours.", "Je suis végane.")
    _chat(api, "s2", "2024-03-02T10:00:00Z", "Il a plu tout l'après-midi, j'ai regardé des séries.")
    _chat(api, "s3", "2024-09-01T10:00:00Z", "On a déménagé à Angers !", "Je ne suis plus végane.")
    assert set(ReviewItem.objects.values_list("attribute", flat=True)) == {"residence", "diet"}
    block = api.get("/api/v1/context/", params={"query": "Où habite-t-elle ?", "user_id": "lea"}).json()["context"]
    assert all("(earlier, until 2024-09-01)" in line for line in block.splitlines() if "Tours" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Où habite Léa maintenant ?", "user_id": "lea"})
    assert "Angers" in answer.json()["answer"].splitlines()[0]


def test_french_memories_stored_before_get_their_reading_from_the_migration(api, kb):
    """Migration 0029 reads every French memory again: those stored before French had a reader of statements get
    the attributes they state."""
    import importlib

    from django.db import connection

    from memories.models import Memory

    _chat(api, "s1", "2024-03-01T10:00:00Z", "Je bosse chez Michelin depuis 2019.")
    job = Memory.objects.get(text__contains="Michelin")
    released = {"speaker": "", "slots": {}, "whole": False, "hints": [], "changes": [], "places": []}
    Memory.objects.filter(pk=job.pk).update(reading=released)  # as the release before read it
    migration = importlib.import_module("memories.migrations.0029_french_statements_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    job.refresh_from_db()
    assert job.reading["slots"] == {"employer": "michelin"}
