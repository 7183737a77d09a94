"""A job worker prepares the embedding model as it starts, and starts even when that fails."""

from __future__ import annotations

import gc
import logging

import pytest
from django_q.signals import post_spawn

from kbsite.ai import embeddings


@pytest.fixture(autouse=True)
def no_knowledge_sync(monkeypatch):
    monkeypatch.setattr("knowledge.services.enqueue_sync", lambda: None)  # the worker_ready receiver


@pytest.fixture(autouse=True)
def unfrozen():
    yield
    gc.unfreeze()  # a worker start freezes the collector's view of the test process


def test_a_worker_process_warms_the_embedder_as_it_starts(monkeypatch):
    calls = []
    monkeypatch.setattr(embeddings, "warm_up", lambda: calls.append(1))
    post_spawn.send(sender="django_q", proc_name="Process-1:1")
    assert calls == [1]


def test_a_worker_freezes_what_warm_up_loaded_out_of_the_collector(monkeypatch):
    calls = []
    monkeypatch.setattr(embeddings, "warm_up", lambda: calls.append("warm-up"))
    monkeypatch.setattr("kbsite.receivers.gc.freeze", lambda: calls.append("freeze"))
    post_spawn.send(sender="django_q", proc_name="Process-1:1")
    assert calls == ["warm-up", "freeze"]


def test_a_task_run_inline_does_not_warm_the_embedder(monkeypatch):
    calls = []
    monkeypatch.setattr(embeddings, "warm_up", lambda: calls.append(1))
    post_spawn.send(sender="django_q", proc_name="MainProcess")
    assert calls == []
    assert gc.get_freeze_count() == 0


def test_a_worker_starts_even_if_the_model_cannot_load(settings, caplog):
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_BASE_URL = ""  # a remote backend with no address: no embedder can be made
    embeddings.get_embedder.cache_clear()
    try:
        with caplog.at_level(logging.ERROR, logger="kbsite.receivers"):
            post_spawn.send(sender="django_q", proc_name="Process-1:1")
    finally:
        embeddings.get_embedder.cache_clear()
    assert "could not prepare the embedding model" in caplog.text
    assert "EMBEDDING_BACKEND=openai needs EMBEDDING_BASE_URL" in caplog.text  # the real reason, logged
