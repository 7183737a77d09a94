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


def test_the_web_process_starts_when_the_backend_is_unreachable(monkeypatch):
    def unreachable(text):
        raise embeddings.EmbeddingError("embedding endpoint failed: connection refused")

    warnings = []
    monkeypatch.setattr(embeddings, "embed_query", unreachable)
    # Django's set-up reconfigures logging, so the warning is caught at the logger itself.
    monkeypatch.setattr(logging.getLogger("kbsite.serving"), "warning", lambda msg, *a, **k: warnings.append(msg))
    importlib.reload(kbsite.wsgi)
    kbsite.wsgi.warming.join(timeout=30)
    assert kbsite.wsgi.application is not None
    assert warnings == ["could not prepare query embedding at start"]
