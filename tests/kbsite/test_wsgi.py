"""A web process prepares query embedding as it starts, and starts even when it cannot."""

from __future__ import annotations

import importlib
import logging

import kbsite.wsgi
from kbsite.ai import embeddings

kbsite.wsgi.warming.join(timeout=60)  # the import's own warm-up, before the tests patch anything


def test_the_web_process_embeds_a_query_as_it_starts(monkeypatch):
    seen = []
    monkeypatch.setattr(embeddings, "embed_query", seen.append)
    importlib.reload(kbsite.wsgi)
    kbsite.wsgi.warming.join(timeout=30)
    assert len(seen) == 1 and kbsite.wsgi.application is not None


def test_the_web_process_starts_when_the_backend_is_unreachable(settings, monkeypatch):
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # a remote backend that is down: nothing listens there
    settings.LLM_TIMEOUT_SECONDS = 5
    embeddings.get_embedder.cache_clear()
    warnings = []
    # Django's set-up reconfigures logging, so the warning is caught at the logger itself.
    monkeypatch.setattr(logging.getLogger("kbsite.serving"), "warning", lambda msg, *a, **k: warnings.append(msg))
    try:
        importlib.reload(kbsite.wsgi)
        kbsite.wsgi.warming.join(timeout=30)
    finally:
        embeddings.get_embedder.cache_clear()
    assert kbsite.wsgi.application is not None
    assert warnings == ["could not prepare query embedding at start"]
