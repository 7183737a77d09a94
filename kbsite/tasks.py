"""Background tasks of the base app (django-q2)."""

from __future__ import annotations

import time

from kbsite import jobs
from kbsite.ai import embeddings


def warm_up(hold_seconds: float = 0.0, multilingual: bool = False) -> str:
    """Load the embedding model in this worker process, and the multilingual one too if asked (and
    MULTILINGUAL_VECTORS is on); optionally keep the worker busy a moment, so that each of several such tasks lands
    on a worker of its own."""
    embeddings.warm_up()
    if multilingual and (second := embeddings.get_multilingual()) is not None:
        second.warm_up()
    time.sleep(hold_seconds)
    return embeddings.get_embedder().name


def jobs_heal() -> dict[str, int]:
    """The scheduled sweep (every minute): see kbsite.jobs.jobs_heal."""
    return jobs.jobs_heal()
