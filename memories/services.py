"""Writes and workflows of the memory domain (typed, keyword-only)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from kbsite import jobs, locks
from kbsite.ai import defence, embeddings
from kbsite.locks import Lock
from kbsite.models import EndUser, KnowledgeBase, Mode
from memories import webhooks
from memories.ingest import statements
from memories.models import Edge, Entity, Insight, Memory, Message, TermStat, text_hash
from memories.reviews.records import supersession_reviews

logger = logging.getLogger(__name__)

EMBED_BATCH_ROWS = 512


def kb_vector_index_if_due(*, kb: KnowledgeBase) -> int:
    """Move a KB's shared memories into the approximate vector index once it holds VECTOR_INDEX_MIN_MEMORIES
    shared ones, and those of an indexed KB that were written outside ingest (an operator's, a bot's memory_add)
    since. End users' memories never go in: recall for one user compares their few exactly, which the index's
    filtered scan could not do well. Returns how many memories it moved."""
    with transaction.atomic():
        locks.hold(Lock.KB_WRITE, kb.pk)  # no apply writes this KB's memories meanwhile: none is left behind
        indexed = KnowledgeBase.objects.filter(pk=kb.pk).values_list("vector_index", flat=True).first()
        if indexed is None:
            return 0
        if not indexed:
            shared = Memory.objects.filter(kb=kb, end_user__isnull=True)
            if shared.count() < settings.VECTOR_INDEX_MIN_MEMORIES:
                return 0
            KnowledgeBase.objects.filter(pk=kb.pk).update(vector_index=True)
        moved = Memory.objects.filter(kb=kb, end_user__isnull=True, in_vector_index=False).update(in_vector_index=True)
        # Its shared searched turns (LLM mode) go in with them.
        Message.objects.filter(
            kb=kb, session__end_user__isnull=True, embedding__isnull=False, in_vector_index=False
        ).update(in_vector_index=True)
    if moved:
        logger.info("%s memories of %s moved into the vector index", moved, kb)
    return moved


def retirement_follow(memory_ids: list[int], *, reason: str, at) -> int:
    """What follows retired memories: the graph edges they asserted are retired with them, and so are the insights
    that drew on them (an insight quoting a retired fact would put it back into a bot's prompt). The other memories
    of those insights are consolidated again, so that what still holds is linked anew. Returns the insights
    retired."""
    if not memory_ids:
        return 0
    Edge.objects.filter(memory_id__in=memory_ids, retired_at__isnull=True).update(retired_at=at)
    return insights_retire(memory_ids, reason=f"a memory it drew on was retired ({reason})", at=at)


def insights_retire(memory_ids: list[int], *, reason: str, at) -> int:
    """Retire the live insights that drew on ``memory_ids`` (with ``reason``); their other memories are
    consolidated again. Returns how many."""
    insight_ids = list(
        Insight.objects.live().filter(memories__in=memory_ids).values_list("id", flat=True).distinct().order_by()
    )
    if not insight_ids:
        return 0
    Insight.objects.filter(pk__in=insight_ids).update(retired_at=at, retired_reason=reason[:200])
    _consolidate_again(insight_ids, but=memory_ids)
    return len(insight_ids)


def _consolidate_again(insight_ids: list[int], *, but: list[int]) -> None:
    """The live memories of insights that go (but ``but``) are consolidated again, so what holds is linked anew."""
    Memory.objects.live().filter(insights__in=insight_ids).exclude(pk__in=but).update(consolidated=False)


def memory_retire(*, memory: Memory, reason: str, superseded_by: Memory | None = None) -> bool:
    """Retire a fact (never delete), replaced by ``superseded_by`` if given, and what follows it in the same
    transaction: its graph edges and the insights that drew on it are retired (:func:`retirement_follow`), and its
    bot's webhooks are told (``memory.superseded`` or ``memory.retired``). Returns False if it was retired
    already."""
    with transaction.atomic():
        if not memory.retire(reason=reason, superseded_by=superseded_by):
            return False
        retirement_follow([memory.pk], reason=reason, at=memory.retired_at)
        webhooks.memory_retired(memory)
    return True


class MemoryRetired(Exception):
    """The memory is retired: it cannot be edited (restore it first)."""


EDITED = "edited"


def memory_update(*, memory: Memory, data: dict) -> Memory:
    """An edit by an operator, a client or a bot. Returns the memory as it now stands.

    A new wording is a new version: the memory is retired with the reason "edited", superseded by a new memory
    that carries everything else over (owner, kind, tags, times, provenance) with the changes. Its history is
    kept and linked, and what followed the old wording (insights, edges) is retired with it. The new text is
    screened like a new fact (a secret or an injection puts it in quarantine, with the reason) and embedded by a
    job. Other fields (kind, tags, importance, valid_from) change in place."""
    if not memory.is_live:
        raise MemoryRetired(f"memory {memory.pk} is retired ({memory.retired_reason}); restore it to edit it")
    if "text" not in data or data["text"] == memory.text:
        for field, value in data.items():
            setattr(memory, field, value)
        memory.save()
        return memory
    screening = defence.screen(data["text"])
    with transaction.atomic():
        version = Memory.objects.create(
            kb_id=memory.kb_id,
            end_user=data["end_user"] if "end_user" in data else memory.end_user,
            text=screening.text,
            language=(language := memory.kb.languages_of([screening.text])[0]),
            reading=statements.reading(screening.text, language),
            kind=data.get("kind", memory.kind),
            entities=data.get("entities", memory.entities),
            topics=data.get("topics", memory.topics),
            importance=data.get("importance", memory.importance),
            valid_from=data.get("valid_from", memory.valid_from),
            valid_to=data.get("valid_to", memory.valid_to),
            metadata=data.get("metadata", memory.metadata),
            source=memory.source,
            source_chunk_id=memory.source_chunk_id,
            source_file=memory.source_file,
            mode=Mode.MANUAL,
            quarantined=screening.quarantined,
            quarantine_reason=screening.reason,
        )
        version.source_messages.set(memory.source_messages.all())
        webhooks.memories_created([version])
        if not memory_retire(memory=memory, reason=EDITED, superseded_by=version):
            raise MemoryRetired(f"memory {memory.pk} was retired meanwhile")
        supersession_reviews([(memory.pk, version.pk)], reason=EDITED)
    enqueue_embed_missing(kb_id=memory.kb_id)
    return version


QUARANTINED = "quarantined: "


def insight_update(*, insight: Insight, text: str) -> Insight:
    """An operator's edit of an insight's text, screened like every text a bot is given, and embedded again by a job
    (its full-text vector follows the text). Insights have no quarantine of their own: a text flagged as a secret or
    a prompt injection retires the insight with the reason ("quarantined: …"), so that no bot is given it while the
    operator still sees it; a clean text makes an insight retired that way live again. Returns the insight."""
    screening = defence.screen(text)
    insight.text, insight.embedding = screening.text, None
    if screening.quarantined and insight.retired_at is None:
        insight.retired_at, insight.retired_reason = timezone.now(), (QUARANTINED + screening.reason)[:200]
    elif not screening.quarantined and insight.retired_reason.startswith(QUARANTINED):
        insight.retired_at, insight.retired_reason = None, ""
    insight.save(update_fields=["text", "embedding", "retired_at", "retired_reason"])
    enqueue_embed_missing(kb_id=insight.kb_id)
    return insight


def memory_forget(*, memory: Memory, reason: str) -> bool:
    """Forget a fact: retire it with the reason (it stays in the history, and an operator can restore it; erasure
    is for end users' data rights). Returns False if it was retired already."""
    return memory_retire(memory=memory, reason=reason or "forgotten")


def memory_delete(*, memory: Memory) -> dict[str, int]:
    """Delete a fact for good (a bot's DELETE, a superuser in the admin): nothing that says what it said is left
    live. The insights that drew on it are deleted with it (not rewritten; their other memories are consolidated
    again), and so are the graph edges it asserted and its review items; its webhooks are told ``memory.deleted``.
    Its other versions stay, each a fact of its own. Returns what went with it."""
    with transaction.atomic():
        insight_ids = list(memory.insights.values_list("id", flat=True))
        _consolidate_again(insight_ids, but=[memory.pk])
        Insight.objects.filter(pk__in=insight_ids).delete()
        edges, _ = Edge.objects.filter(memory=memory).delete()
        webhooks.memory_deleted(memory)
        memory.delete()
    return {"insights": len(insight_ids), "edges": edges}


def memory_restore(*, memory: Memory, replacement_stays: bool = False) -> bool:
    """Un-retire a memory. If its replacement is still live, the supersession is undone: the replacement is
    retired in its place (unless ``replacement_stays``: both are kept). Its graph edges come back (unless the same
    edge is live again); it is consolidated again. Returns False if it was live."""
    with transaction.atomic():
        row = Memory.objects.select_for_update().get(pk=memory.pk)
        if row.retired_at is None:
            return False
        retired_at, replacement = row.retired_at, row.superseded_by
        row.retired_at, row.valid_to, row.retired_reason, row.superseded_by = None, None, "", None
        row.consolidated = False
        row.save(
            update_fields=["retired_at", "valid_to", "retired_reason", "superseded_by", "consolidated", "updated_at"]
        )
        if replacement is not None and replacement.is_live and not replacement_stays:
            memory_retire(memory=replacement, reason=f"replaced by memory {row.pk}, restored", superseded_by=row)
        for edge in Edge.objects.filter(memory=row, retired_at=retired_at):
            live = Edge.objects.filter(kb_id=edge.kb_id, src_id=edge.src_id, relation=edge.relation, dst_id=edge.dst_id)
            if not live.filter(retired_at__isnull=True).exists():
                Edge.objects.filter(pk=edge.pk).update(retired_at=None)
    memory.refresh_from_db()
    return True


def kb_clear(*, kb: KnowledgeBase) -> dict[str, int]:
    """Remove all memories, insights and the entity graph of a KB (on the client's request).

    Messages and documents stay: they are the inputs, and the extraction
    cursors stay where they are, so cleared facts are not re-extracted.
    """
    with transaction.atomic():
        insights = Insight.objects.filter(kb=kb).delete()[1].get("memories.Insight", 0)
        memories = Memory.objects.filter(kb=kb).delete()[1].get("memories.Memory", 0)
        entities = Entity.objects.filter(kb=kb).delete()[1].get("memories.Entity", 0)
        TermStat.objects.filter(kb=kb).delete()
        # Emptied: it starts again as a small KB, searched exactly (its searched turns too).
        KnowledgeBase.objects.filter(pk=kb.pk).update(term_stats_memories=0, vector_index=False)
        Message.objects.filter(kb=kb, in_vector_index=True).update(in_vector_index=False)
    logger.info("cleared kb %s: %s memories, %s insights, %s entities", kb, memories, insights, entities)
    return {"memories": memories, "insights": insights, "entities": entities}


def enqueue_embed_missing(*, kb_id: int | None) -> None:
    """Queue the embedding of the KB's memories and insights that have none yet (after edits and additions)."""
    jobs.task_enqueue("memories.tasks.embed_missing", kb_id, group=f"embed-{kb_id}")


def memories_embed_missing(*, kb_id: int | None = None) -> int:
    """Embed memories and insights that have no embedding yet (added or edited outside ingest, imported, retired
    ones included: a recall ``as_of`` an earlier time searches them), in batches. Returns how many."""
    done = 0
    for model in (Memory, Insight):
        while True:
            queryset = model.objects.filter(embedding__isnull=True)
            if kb_id is not None:
                queryset = queryset.filter(kb_id=kb_id)
            rows = list(queryset.order_by("id").values_list("id", "text")[:EMBED_BATCH_ROWS])
            if not rows:
                break
            vectors = embeddings.embed([text for _, text in rows])
            objs = [model(id=pk, embedding=vec) for (pk, _), vec in zip(rows, vectors, strict=True)]
            model.objects.bulk_update(objs, ["embedding"])
            done += len(objs)
    # Memories written outside ingest join a large KB's vector index here (found exactly until then).
    late = KnowledgeBase.objects.filter(
        vector_index=True, memories__in_vector_index=False, memories__end_user__isnull=True
    )
    if kb_id is not None:
        late = late.filter(pk=kb_id)
    for kb in late.distinct():
        kb_vector_index_if_due(kb=kb)
    return done


def memory_add(
    *,
    kb: KnowledgeBase,
    text: str,
    kind: str = Memory.Kind.FACT,
    entities=(),
    topics=(),
    importance: float = 0.5,
    valid_from=None,
    source: str = "api",
    end_user: EndUser | None = None,
    metadata: dict | None = None,
) -> tuple[Memory, bool]:
    """A fact stated directly, by a bot (the ``memory_add`` tool) or an operator (the admin). Returns (memory,
    created).

    Goes through the same write-path defence as extracted facts (quarantined if
    it looks like a secret or an injection); a verbatim duplicate of a live
    memory of the same owner (``end_user``, or shared) returns that memory. The embedding is computed by a job.
    """
    screening = defence.screen(text)
    owner = end_user.pk if end_user else None
    with transaction.atomic():
        same = Memory.objects.live().owned_by(owner).filter(kb=kb, content_hash=text_hash(screening.text))
        existing = same.first()
        if existing:
            return existing, False
        (language,) = kb.languages_of([screening.text])
        kb.languages_note([language])
        memory = Memory.objects.create(
            kb=kb,
            end_user=end_user,
            text=screening.text,
            language=language,
            reading=statements.reading(screening.text, language),
            kind=kind,
            entities=[e.strip().lower() for e in entities if e.strip()][:50],
            topics=[t.strip().lower() for t in topics if t.strip()][:50],
            importance=importance,
            valid_from=valid_from,
            metadata=metadata or {},
            source=source,
            mode=Mode.MANUAL,
            quarantined=screening.quarantined,
            quarantine_reason=screening.reason,
        )
        webhooks.memories_created([memory])
        enqueue_embed_missing(kb_id=kb.pk)
    return memory, True


# KBs with fewer live memories count word frequencies at query time (cheap at that size).
TERM_STATS_MIN_MEMORIES = 5000
# The counts are refreshed once the KB's size has moved by this share since they were taken.
TERM_STATS_DRIFT = 0.1


def kb_term_stats_refresh(*, kb: KnowledgeBase) -> int:
    """Count in how many live shared memories each word of the KB occurs (one pass of ``ts_stat``). Returns the
    words.

    End users' memories are left out: they hold nobody else's words, an end user's recall counts the words of
    their own few rows where the statistics do not know them, and an erasure leaves nothing of the user here."""
    kb_id = int(kb.pk)  # ts_stat takes its query as text: only an integer goes into it
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM memories_memory WHERE kb_id = %s AND end_user_id IS NULL AND retired_at IS NULL",
                [kb_id],
            )
            live = cursor.fetchone()[0]
            TermStat.objects.filter(kb_id=kb_id).delete()
            cursor.execute(
                """INSERT INTO memories_termstat (kb_id, term, ndoc)
                   SELECT %s, word, ndoc FROM ts_stat(%s) WHERE length(word) <= 200""",
                [
                    kb_id,
                    "SELECT search_vector FROM memories_memory "
                    f"WHERE kb_id = {kb_id} AND end_user_id IS NULL AND retired_at IS NULL AND NOT quarantined",
                ],
            )
            words = cursor.rowcount
        KnowledgeBase.objects.filter(pk=kb_id).update(term_stats_memories=max(live, 1))
    logger.info("word statistics of %s: %s words over %s memories", kb, words, live)
    return words


def kb_term_stats_refresh_if_due(*, kb: KnowledgeBase) -> bool:
    """Refresh a large KB's word statistics (of its shared memories) when they have grown or shrunk enough since
    the last count."""
    live = Memory.objects.filter(kb=kb, end_user__isnull=True, retired_at__isnull=True).count()
    kept = KnowledgeBase.objects.filter(pk=kb.pk).values_list("term_stats_memories", flat=True).first() or 0
    if live < TERM_STATS_MIN_MEMORIES:
        if kept:  # shrunk below the threshold (e.g. cleared): counting at query time is right again
            TermStat.objects.filter(kb=kb).delete()
            KnowledgeBase.objects.filter(pk=kb.pk).update(term_stats_memories=0)
        return False
    if kept and abs(live - kept) < TERM_STATS_DRIFT * kept:
        return False
    kb_term_stats_refresh(kb=kb)
    return True
