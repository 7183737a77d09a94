"""Writes and workflows of the memory domain (typed, keyword-only)."""

from __future__ import annotations

import logging

from django.db import transaction

from memories import embeddings
from memories.models import Consolidation, Entity, KnowledgeBase, Memory, Mode, text_hash

logger = logging.getLogger(__name__)

EMBED_BATCH_ROWS = 512


def memory_update(*, memory: Memory, data: dict) -> Memory:
    """Operator/client edit of a memory. Changed text is re-embedded by a job, not here."""
    text_changed = "text" in data and data["text"] != memory.text
    for field, value in data.items():
        setattr(memory, field, value)
    if text_changed:
        memory.embedding = None
    memory.save()
    if text_changed:
        from memories.tasks import enqueue_embed_missing

        enqueue_embed_missing(kb_id=memory.kb_id)
    return memory


def kb_clear(*, kb: KnowledgeBase) -> dict[str, int]:
    """Remove all memories, insights and the entity graph of a KB (on the client's request).

    Messages and documents stay: they are the inputs, and the extraction
    cursors stay where they are, so cleared facts are not re-extracted.
    """
    with transaction.atomic():
        insights = Consolidation.objects.filter(kb=kb).delete()[1].get("memories.Consolidation", 0)
        memories = Memory.objects.filter(kb=kb).delete()[1].get("memories.Memory", 0)
        entities = Entity.objects.filter(kb=kb).delete()[1].get("memories.Entity", 0)
    logger.info("cleared kb %s: %s memories, %s insights, %s entities", kb, memories, insights, entities)
    return {"memories": memories, "insights": insights, "entities": entities}


def memories_embed_missing(*, kb_id: int | None = None) -> int:
    """Embed live memories and insights that have no embedding yet, in batches. Returns how many."""
    done = 0
    for model in (Memory, Consolidation):
        while True:
            queryset = model.objects.filter(embedding__isnull=True, valid_to__isnull=True)
            if kb_id is not None:
                queryset = queryset.filter(kb_id=kb_id)
            rows = list(queryset.order_by("id").values_list("id", "text")[:EMBED_BATCH_ROWS])
            if not rows:
                break
            vectors = embeddings.embed([text for _, text in rows])
            objs = [model(id=pk, embedding=vec) for (pk, _), vec in zip(rows, vectors, strict=True)]
            model.objects.bulk_update(objs, ["embedding"])
            done += len(objs)
    return done


def memory_add(
    *, kb: KnowledgeBase, text: str, kind: str = Memory.Kind.FACT, entities=(), topics=(), source: str = "api"
) -> tuple[Memory, bool]:
    """A fact stated directly by a bot (the ``memory_add`` tool). Returns (memory, created).

    Goes through the same write-path defence as extracted facts (quarantined if
    it looks like a secret or an injection); a verbatim duplicate of a live
    memory returns that memory. The embedding is computed by a job.
    """
    from memories import defence

    screening = defence.screen(text)
    with transaction.atomic():
        existing = Memory.objects.live().filter(kb=kb, content_hash=text_hash(screening.text)).first()
        if existing:
            return existing, False
        memory = Memory.objects.create(
            kb=kb,
            text=screening.text,
            kind=kind,
            entities=[e.strip().lower() for e in entities if e.strip()][:50],
            topics=[t.strip().lower() for t in topics if t.strip()][:50],
            source=source,
            mode=Mode.MANUAL,
            quarantined=screening.quarantined,
            quarantine_reason=screening.reason,
        )
        from memories.tasks import enqueue_embed_missing

        enqueue_embed_missing(kb_id=kb.pk)
    return memory, True
