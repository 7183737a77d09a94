"""Sessions claimed by extraction jobs, so that jobs sharing a KB's backlog never overlap.

Jobs sharing a KB's backlog never extract the same turns, and each claims about its even share of what waits, so
that the workers finish together.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, F, Min, Q
from django.utils import timezone

from kbsite.models import JobRun, KnowledgeBase
from memories.ingest.apply import CursorGuard
from memories.ingest.extraction import Turn
from memories.models import Message, Session


def sessions_claim(
    kb: KnowledgeBase, job: JobRun, exclude: set[int], budget: int, sharers: int = 1
) -> tuple[list[int], bool]:
    """Claim for ``job`` the KB's sessions with unprocessed turns, oldest first, until they hold ``budget``
    turns, skipping sessions another job has claimed. Returns the claimed session ids and whether
    unclaimed work was left for another job. A claim lasts at most the job time limit.

    With ``sharers`` workers sharing the waiting work, a job claims at most its even share of the free turns
    of this KB and of the other KBs whose extraction is queued. While other KBs wait, chunks stay large (a
    batch of embeddings pads less when there are more texts of each length to group: counting only this KB,
    LoCoMo went in 10-16 chunks per worker, under 32 turns for half of them, and 8 % slower end to end); the
    last turns are still split between the workers rather than left to one running alone."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now) | Q(claimed_by=job)
    rows = list(
        Message.objects.filter(kb=kb, id__gt=F("session__extracted_through"))
        .exclude(session_id__in=exclude)
        .filter(session__in=Session.objects.filter(free))
        .values("session_id")
        .annotate(turns=Count("id"), first=Min("id"))
        .order_by("first")
    )
    until = now + timedelta(seconds=settings.Q_CLUSTER["timeout"])
    if sharers > 1:
        queued = JobRun.objects.filter(kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.QUEUED).exclude(kb=kb)
        # Counted only as far as could change the share: a long backlog is not read on every claim.
        elsewhere = (
            Message.objects.filter(kb__in=queued.values("kb_id"), id__gt=F("session__extracted_through"))
            .filter(session__in=Session.objects.filter(free))
            .values("id")[: budget * sharers]
            .count()
        )
        free_turns = elsewhere + sum(min(row["turns"], settings.EXTRACT_BATCH_TURNS) for row in rows)
        budget = min(budget, -(-free_turns // sharers))
    claimed: list[int] = []
    taken = 0
    for row in rows:
        if taken >= budget:
            return claimed, True
        if Session.objects.filter(free, pk=row["session_id"]).update(claimed_by=job, claimed_until=until):
            claimed.append(row["session_id"])
            taken += min(row["turns"], settings.EXTRACT_BATCH_TURNS)
    return claimed, False


def sessions_release(job: JobRun, session_ids: list[int]) -> None:
    Session.objects.filter(pk__in=session_ids, claimed_by=job).update(claimed_by=None, claimed_until=None)


def claims_of_stopped_runs_release() -> int:
    """Hand back the sessions claimed by runs that are no longer waiting or running (part of the jobs' healing)."""
    return (
        Session.objects.filter(claimed_by__isnull=False)
        .exclude(claimed_by__status__in=[JobRun.Status.QUEUED, JobRun.Status.RUNNING])
        .update(claimed_by=None, claimed_until=None)
    )


def claims_release(job: JobRun, reason: str = "") -> None:
    """Hand back every session ``job`` claims (it ended without releasing them): their turns wait for the next job."""
    Session.objects.filter(claimed_by=job).update(claimed_by=None, claimed_until=None)


def claimed_batches(session_ids: list[int]) -> list[tuple[CursorGuard, list[Turn]]]:
    """The claimed sessions' turns past their cursors (read after claiming, so the cursors are current),
    at most EXTRACT_BATCH_TURNS per session."""
    by_session: dict[int, list[Turn]] = {sid: [] for sid in session_ids}
    cursors: dict[int, int] = {}
    pending = (
        Message.objects.filter(session_id__in=session_ids, id__gt=F("session__extracted_through"))
        .order_by("id")
        .values_list(
            "id",
            "session_id",
            "session__extracted_through",
            "session__end_user_id",
            "content",
            "speaker",
            "role",
            "created_at",
            "metadata",
            "language",
        )
    )
    owners: dict[int, int | None] = {}
    for pk, session_id, cursor, owner, content, speaker, role, created_at, metadata, language in pending:
        batch = by_session[session_id]
        cursors[session_id], owners[session_id] = cursor, owner
        if len(batch) < settings.EXTRACT_BATCH_TURNS:
            batch.append(
                Turn(
                    ref=f"m{pk}",
                    text=content,
                    speaker=speaker,
                    role=role,
                    when=created_at,
                    message_id=pk,
                    metadata=metadata or {},
                    language=language,
                )
            )
    return [
        (CursorGuard(session_id=sid, expected=cursors[sid], to=batch[-1].message_id, end_user_id=owners[sid]), batch)
        for sid, batch in by_session.items()
        if batch
    ]
