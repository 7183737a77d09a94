"""Re-embedding every stored vector when the configured embedding model changes (EMBEDDING_MODEL), resumably, while
recall goes on: memories, insights, searched turns and document chunks, in id order, a batch at a time.

The state (kbsite.models.EmbeddingState) says which model the vectors come from and, while they are re-embedded,
which rows are left in each table: recall's vector lists leave those out (full text still finds them), so a
question is never compared with vectors of another model. Rows written meanwhile are embedded by the configured
model already. It runs by itself (the jobs' healing queues a run of ``reembed_continue`` every minute while rows
are left) or
in the foreground (``manage.py reembed``, with a progress bar); runners take turns, a batch each. Then document
chunks and memories without their second, multilingual vector get it (memories.multilingual), in the background.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import connection, transaction

from kbsite.ai import embeddings
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.models import EmbeddingState, JobRun
from memories.multilingual import multilingual_batch, multilingual_due

logger = logging.getLogger(__name__)

# Each table, and the text its vectors are made from (as ingest, consolidation and indexing make them).
TABLES = {
    "memories_memory": "text",
    "memories_insight": "text",
    "memories_message": "CASE WHEN speaker <> '' THEN speaker || ': ' || content ELSE content END",
    "knowledge_chunk": "text",
}
BATCH_ROWS = 64
RUN_SECONDS = 50  # a background run stops after about this long and queues the next (a worker is not held)


def reembed_state() -> EmbeddingState:
    """The state, with re-embedding begun if the configured model is not the one the vectors come from."""
    state = EmbeddingState.get() or EmbeddingState.objects.create(pk=1, model=embeddings.model_id())
    wanted = embeddings.model_id()
    if state.model != wanted and state.target != wanted:
        with connection.cursor() as cursor:
            tables = {}
            for table in TABLES:
                cursor.execute(f"SELECT coalesce(max(id), 0), count(embedding) FROM {table}")
                tables[table] = tuple(cursor.fetchone())
        state.begin(wanted, tables)
        logger.info("re-embedding every stored vector with %s (they come from %s)", wanted, state.model)
    return state


def reembed_batch(state: EmbeddingState) -> int:
    """Re-embed the next batch of the first table with rows left; returns how many rows (0: none left, done)."""
    for table, source in TABLES.items():
        stale = state.stale(table)
        if stale is None:
            continue
        cursor_id, last = stale
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id, {source} FROM {table} WHERE id > %s AND id <= %s AND embedding IS NOT NULL "
                "ORDER BY id LIMIT %s",
                [cursor_id, last, BATCH_ROWS],
            )
            rows = cursor.fetchall()
        vectors = as_vectors(embeddings.embed([text for _, text in rows])) if rows else []
        with transaction.atomic(), vector_cursor() as cursor:
            for (pk, _), vector in zip(rows, vectors, strict=True):
                cursor.execute(f"UPDATE {table} SET embedding = %s WHERE id = %s", [vector, pk])
            progress = state.progress[table]
            progress["cursor"] = rows[-1][0] if rows else last
            progress["done"] = progress.get("done", 0) + len(rows)
            state.save(update_fields=["progress", "updated_at"])
        return len(rows) or reembed_batch(state)
    state.finish()
    logger.info("re-embedding done: every stored vector comes from %s", state.model)
    return 0


def reembed_run(*, seconds: float | None = None, shown: Callable[[EmbeddingState, int], None] | None = None) -> bool:
    """Re-embed batch after batch (for about ``seconds``, or to the end), telling ``shown`` after each. Runners take
    turns by the state's row lock, a batch each. Returns whether every vector is now the configured model's."""
    started = time.monotonic()
    with transaction.atomic():
        reembed_state()
    while True:
        with transaction.atomic():
            state = EmbeddingState.objects.select_for_update().get(pk=1)
            done = (reembed_batch(state) if state.target else 0) or multilingual_batch()  # then the second vectors
            if not done:
                return True
        if shown:
            shown(state, done)
        if seconds is not None and time.monotonic() - started > seconds:
            return not state.target
        if seconds is not None and not state.target and JobRun.objects.filter(status=JobRun.Status.QUEUED).exists():
            return True  # second vectors hold no worker from queued jobs: a batch a run (the healing's, a minute on)


def reembed_continue() -> None:
    """The background runner: re-embed for about RUN_SECONDS (the jobs' healing queues the next run a minute
    on, while rows are left)."""
    reembed_run(seconds=RUN_SECONDS)


def reembed_due() -> bool:
    """Whether vectors are left to re-embed (the configured model is not theirs), or document chunks or memories
    without their multilingual vector (memories.multilingual): the healing queues a run."""
    state = EmbeddingState.get()
    if state is None or state.model != embeddings.model_id() or bool(state.target):
        return True
    return multilingual_due()
