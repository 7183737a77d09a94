"""Re-embedding every stored vector when the configured embedding model changes (memories/reembedding.py, manage.py
reembed): resumable, and recall working throughout without comparing a question with another model's vectors."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import call_command

from kbsite.ai import embeddings
from kbsite.models import EmbeddingState
from kbsite.models.embeddings import forget
from memories import reembedding
from memories.models import Memory
from tests.conftest import run_queued_tasks
from tests.memories.ingest.test_restated_supersession import say

OLD = "local:an-older-model"


@pytest.fixture(autouse=True)
def fresh_state():
    forget()
    yield
    forget()


def _as_if_another_model_made_them() -> None:
    """The stored vectors are said to be an older model's, and scrambled so that they are."""
    EmbeddingState.objects.update_or_create(pk=1, defaults={"model": OLD, "target": "", "progress": {}})
    for memory in Memory.objects.all():
        memory.embedding = list(np.roll(np.asarray(memory.embedding), 7))
        memory.save(update_fields=["embedding"])
    forget()


def _vector(memory: Memory):
    return np.asarray(Memory.objects.get(pk=memory.pk).embedding)


def test_every_vector_is_made_again_by_the_configured_model_and_the_state_says_so(api, kb):
    """Another model's vectors are re-embedded, table by table, to what the configured model makes of each text; the
    state then names the configured model and nothing is left to do."""
    say(api, "I adopted a greyhound called Pixel.", "My sister Ines lives in Lisbon.")
    _as_if_another_model_made_them()
    assert reembedding.reembed_due()
    assert reembedding.reembed_run()
    state = EmbeddingState.get()
    assert state.model == embeddings.model_id() and not state.target and state.finished_at
    assert state.progress["memories_memory"]["done"] == 2
    for memory in Memory.objects.all():
        expected = np.asarray(embeddings.embed([memory.text])[0])
        assert np.allclose(_vector(memory), expected, atol=1e-4)
    assert not reembedding.reembed_due()


def test_stopped_midway_it_goes_on_where_it_was_and_recall_leaves_the_old_vectors_out(api, kb, settings):
    """A run stopped after one batch leaves the state where it was; meanwhile the vector list searches only what the
    configured model made (full text still finds the rest); the next run finishes."""
    settings.CONTEXT_RELEVANCE_THRESHOLD = 0.0
    say(api, "I adopted a greyhound called Pixel.", "My sister Ines lives in Lisbon.", "The hike was long.")
    _as_if_another_model_made_them()
    reembedding.BATCH_ROWS, batch = 1, reembedding.BATCH_ROWS
    try:
        assert not reembedding.reembed_run(seconds=0)
    finally:
        reembedding.BATCH_ROWS = batch
    state = EmbeddingState.get()
    assert state.target == embeddings.model_id() and state.progress["memories_memory"]["done"] == 1
    forget()
    hits = api.post("/api/v1/kbs/notes/recall/", json={"query": "which dog did she adopt", "k": 5}).json()["results"]
    vector_found = {h["text"] for h in hits if "vector" in h["signals"]}
    first = Memory.objects.order_by("id").first()
    assert vector_found <= {first.text}
    hits = api.post("/api/v1/kbs/notes/recall/", json={"query": "Lisbon", "k": 5}).json()["results"]
    assert any("Lisbon" in h["text"] for h in hits)
    assert reembedding.reembed_run()


def test_the_command_runs_it_to_the_end_and_the_workers_are_asked_to_by_the_healing(api, kb, capsys):
    """manage.py reembed re-embeds everything, saying how many; while vectors are left, the jobs' healing queues a
    run of its own."""
    say(api, "I adopted a greyhound called Pixel.")
    _as_if_another_model_made_them()
    from kbsite.jobs import jobs_heal

    assert jobs_heal()["reembed"] is True
    run_queued_tasks()
    assert EmbeddingState.get().model == embeddings.model_id()
    _as_if_another_model_made_them()
    call_command("reembed")
    assert "Done: every stored vector comes from" in capsys.readouterr().out
    call_command("reembed")
    assert "nothing to do" in capsys.readouterr().out


def test_the_dashboard_shows_how_far_re_embedding_has_got(admin_client, api, kb):
    """While vectors are left, the admin's dashboard says so, with the share done and what recall does meanwhile."""
    say(api, "I adopted a greyhound called Pixel.", "My sister Ines lives in Lisbon.")
    _as_if_another_model_made_them()
    reembedding.reembed_state()
    page = admin_client.get("/admin/").content.decode()
    assert f"Re-embedding the stored vectors with {embeddings.model_id()} (they come from {OLD}): 0% done" in page
