"""Consolidation: insights drawn from a KB's unconsolidated memories, on a schedule per always-on KB.

A run takes a bounded batch of the oldest unconsolidated live memories, asks the LLM for insights (each
with the ids of the memories it connects), validates that every id belongs to the batch, and stores the
insights with their links and embeddings while marking the batch consolidated — in one transaction.
Offline, insights come from grouping memories that share entities or topics; so too once the bot's LLM budget of
the day is spent, unless it chose to wait (the run is skipped, the next scheduled one tries again). Runs of one KB
never overlap.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from kbsite import budgets, jobs, locks
from kbsite.ai import embeddings, llm
from kbsite.ai.defence import screen_many
from kbsite.ai.vectors import as_vectors
from kbsite.locks import Lock
from kbsite.models import JobRun, KnowledgeBase, Mode
from memories.models import Insight, Memory

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = """You are a memory consolidation agent. Review these memories and find connections between them:
patterns, causes, a person's evolving situation, things that belong together. Write each insight as one or two
plain sentences that say something the single memories do not, and list the ids of the memories it connects
(at least two). Only use ids from the list. Do not repeat a memory as an insight.
Return STRICT JSON: {"insights": [{"text": "...", "memory_ids": [<id>, <id>, ...]}]}
If there is nothing worth connecting, return {"insights": []}."""


class InvalidInsights(llm.LLMBadReply):
    """The model's insights do not validate (e.g. they cite memories outside the batch)."""


def schedule_name(kb: KnowledgeBase) -> str:
    return f"consolidate-kb-{kb.pk}"


def kb_schedule_sync(*, kb: KnowledgeBase) -> None:
    """Create, update or remove the KB's django-q schedule to match its settings (idempotent)."""
    from django_q.models import Schedule

    if kb.pk and kb.always_on and kb.is_active:
        interval = kb.consolidate_interval_minutes
        schedule, created = Schedule.objects.get_or_create(
            name=schedule_name(kb),
            defaults={
                "func": "memories.tasks.consolidate_kb",
                "args": repr((kb.pk,)),
                "schedule_type": Schedule.MINUTES,
                "minutes": interval,
                "repeats": -1,
                "next_run": timezone.now() + timedelta(minutes=interval),
            },
        )
        if not created and (schedule.minutes != interval or schedule.func != "memories.tasks.consolidate_kb"):
            # Only a changed interval moves the next run; a plain re-save keeps the rhythm.
            schedule.func, schedule.args, schedule.minutes = "memories.tasks.consolidate_kb", repr((kb.pk,)), interval
            schedule.schedule_type, schedule.repeats = Schedule.MINUTES, -1
            schedule.next_run = timezone.now() + timedelta(minutes=interval)
            schedule.save()
    else:
        Schedule.objects.filter(name=schedule_name(kb)).delete()


def schedules_sync_all() -> None:
    """Bring every KB's schedule in line (after migrate) and drop schedules of KBs that are gone."""
    from django_q.models import Schedule

    for kb in KnowledgeBase.objects.all():
        kb_schedule_sync(kb=kb)
    known = {schedule_name(kb) for kb in KnowledgeBase.objects.always_on()}
    Schedule.objects.filter(name__startswith="consolidate-kb-").exclude(name__in=known).delete()


def _heuristic_insights(batch: list[Memory]) -> list[tuple[str, list[int]]]:
    """Group memories that share an entity (or, failing that, a topic) into plainly worded insights."""
    groups: dict[tuple[str, str], list[Memory]] = defaultdict(list)
    for memory in batch:
        for entity in memory.entities:
            groups[("entity", entity)].append(memory)
        for topic in memory.topics:
            groups[("topic", topic)].append(memory)
    used: set[frozenset[int]] = set()
    insights = []
    # Biggest groups first; entities before topics at equal size.
    for (what, name), members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][0] != "entity")):
        ids = frozenset(m.pk for m in members)
        if len(ids) < 2 or ids in used:
            continue
        used.add(ids)
        shown = "; ".join(m.text.rstrip(".") for m in members[:5])
        more = f" (and {len(members) - 5} more)" if len(members) > 5 else ""
        label = f"about {name}" if what == "entity" else f"on the topic '{name}'"
        insights.append((f"{len(members)} memories are {label}: {shown}{more}.", sorted(ids)))
        if len(insights) >= 10:
            break
    return insights


def _llm_insights(batch: list[Memory], job: JobRun) -> list[tuple[str, list[int]]]:
    listing = "\n".join(f"{m.pk} | {m.kind} | {m.text}" for m in batch)
    user = f"Memories (id | kind | text):\n{llm.untrusted('memories', listing)}"
    allowed = {m.pk for m in batch}

    def count(tokens_in: int, tokens_out: int) -> None:
        job.tokens_in += tokens_in
        job.tokens_out += tokens_out

    return llm.complete_validated(
        system=SYSTEM_PROMPT, user=user, validate=lambda data: _validate(data, allowed), usage=count
    )


def _validate(data: dict, allowed: set[int]) -> list[tuple[str, list[int]]]:
    items = data.get("insights")
    if not isinstance(items, list):
        raise InvalidInsights("reply has no 'insights' list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            raise InvalidInsights(f"insight without text: {item!r}"[:200])
        ids = item.get("memory_ids")
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise InvalidInsights(f"insight memory_ids must be a list of integers: {ids!r}"[:200])
        outside = sorted(set(ids) - allowed)
        if outside:
            raise InvalidInsights(f"insight cites memories outside the batch: {outside}")
        if len(set(ids)) < 2:
            raise InvalidInsights("an insight must connect at least two memories")
        out.append((item["text"].strip(), sorted(set(ids))))
    return out


def kb_consolidate(*, job: JobRun) -> JobRun:
    """One consolidation run for ``job.kb``; skipped when another run of the KB is in progress."""
    kb = job.kb
    if not locks.try_acquire(Lock.CONSOLIDATE, kb.pk):
        job.finish(status=JobRun.Status.SKIPPED, error="another consolidation of this KB is running")
        return job
    try:
        job.start()
        batch = _batch(kb)
        job.items_read = len(batch)
        job.mode = Mode.LLM if llm.is_configured() else Mode.HEURISTIC
        if len(batch) < 2:
            job.detail = {"note": "fewer than two new memories: nothing to do"}
            job.finish(status=JobRun.Status.SKIPPED)
            return job
        state = budgets.llm_state(kb.bot_id)
        if state == budgets.WAIT:
            job.finish(status=JobRun.Status.SKIPPED, error=f"{budgets.SPENT}: the next scheduled run consolidates")
            return job
        if budgets.held(state):
            job.mode, job.detail = Mode.HEURISTIC, {"llm_budget": f"{budgets.SPENT}: insights by grouping"}
        try:
            insights = _llm_insights(batch, job) if state == budgets.LLM else _heuristic_insights(batch)
            texts = [s.text for s in screen_many([text for text, _ in insights])]
            vectors = as_vectors(embeddings.embed(texts))
        except (llm.LLMError, embeddings.EmbeddingError) as exc:
            job.detail = {"llm_attempts": getattr(exc, "attempts", None)}
            job.finish(status=JobRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
            return job
        with transaction.atomic():
            job.facts_added = _insights_store(job, batch, insights, texts, vectors)
            job.finish(status=JobRun.Status.SUCCEEDED)
        return job
    finally:
        locks.release(Lock.CONSOLIDATE, kb.pk)


def _batch(kb: KnowledgeBase) -> list[Memory]:
    """The oldest unconsolidated memories of one owner (an end user, or the shared ones): the one whose waiting
    memories start earliest, among those with at least two. An insight never links two users' memories."""
    pending = Memory.objects.injectable().filter(kb=kb, consolidated=False)
    owners = list(
        pending.values("end_user_id")
        .annotate(waiting=Count("id"), since=Min("created_at"))
        .filter(waiting__gte=2)
        .order_by("since")
        .values_list("end_user_id", flat=True)[:1]
    )
    if not owners:
        return []
    return list(
        pending.owned_by(owners[0])
        .order_by("created_at", "id")
        .defer("embedding", "search_vector")[: settings.CONSOLIDATE_BATCH]
    )


def _language_of(memories: list[Memory]) -> str:
    """The language most of ``memories`` are in: that of the insight drawn from them."""
    told = Counter(m.language for m in memories)
    return told.most_common(1)[0][0] if told else ""


def _insights_store(job: JobRun, batch: list[Memory], insights, texts: list[str], vectors) -> int:
    """Store the insights with their links and mark the batch consolidated; returns how many were stored. The batch
    was read before the LLM call: its memories still live are locked now, so none is deleted under the links, and
    an insight left with fewer than two of them is dropped."""
    now = timezone.now()
    alive = set(
        Memory.objects.select_for_update()
        .filter(pk__in=[m.pk for m in batch], retired_at__isnull=True)
        .values_list("pk", flat=True)
    )
    kept = [
        (text, vector, [pk for pk in ids if pk in alive])
        for text, vector, (_, ids) in zip(texts, vectors, insights, strict=True)
        if sum(pk in alive for pk in ids) >= 2
    ]
    rows = Insight.objects.bulk_create(
        [
            Insight(
                kb=job.kb,
                end_user_id=batch[0].end_user_id,
                text=text,
                language=_language_of([m for m in batch if m.pk in ids]),
                embedding=vector,
                mode=job.mode,
                job_run=job,
                created_at=now,
            )
            for text, vector, ids in kept
        ]
    )
    through = Insight.memories.through
    through.objects.bulk_create(
        [through(insight_id=row.pk, memory_id=pk) for row, (_, _, ids) in zip(rows, kept, strict=True) for pk in ids]
    )
    # The whole batch was reviewed, linked or not: it is not fed again.
    Memory.objects.filter(pk__in=alive).update(consolidated=True, updated_at=now)
    return len(rows)


def enqueue_consolidation(*, kb: KnowledgeBase) -> JobRun:
    """Queue a consolidation run now (API, admin action)."""
    return jobs.job_enqueue(kind=JobRun.Kind.CONSOLIDATE, kb=kb, target="consolidate now")
