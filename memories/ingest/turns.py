"""The extraction job over posted turns: claim sessions, extract, apply, advance their cursors."""

from __future__ import annotations

from django.conf import settings

from kbsite.ai import embeddings, llm
from kbsite.models import JobRun, KnowledgeBase, Mode
from memories import services
from memories.ingest.apply import CursorGuard, CursorMoved, facts_apply
from memories.ingest.claims import claimed_batches, sessions_claim, sessions_release
from memories.ingest.extraction import Extraction, Turn
from memories.ingest.facts import extract, job_fail, mode
from memories.ingest.receive import enqueue_extract
from memories.text import is_salient


def extract_pending(*, job: JobRun) -> JobRun:
    """Extract facts from the KB's turns past their session cursors.

    The job claims sessions holding about EXTRACT_CHUNK_TURNS new turns at a time. With an LLM: one
    call per session batch, each applied on its own, sessions in order. Offline: the chunk is extracted,
    embedded and applied together, and while more turns wait the job queues a second one, so that all
    workers share one KB's backlog (their applies still take turns under the KB's lock); each claims at
    most its even share of the waiting turns, so the workers finish together (see claims.sessions_claim).
    """
    kb = job.kb
    job.start()
    skipped_turns = 0
    failed_sessions: set[int] = set()
    errors: list[Exception] = []
    offline = not llm.is_configured()
    sharers = settings.Q_CLUSTER["workers"] if offline else 1  # workers that can share the KB's backlog
    while True:
        claimed, more = sessions_claim(kb, job, failed_sessions, settings.EXTRACT_CHUNK_TURNS, sharers)
        if not claimed:
            break
        try:
            if more and sharers > 1:
                enqueue_extract(kb=kb)
            batches = claimed_batches(claimed)
            groups = _by_owner(batches) if offline else [[b] for b in batches]
            for group in groups:
                skipped_turns += _extract_group(kb, job, group, failed_sessions, errors)
        finally:
            sessions_release(job, claimed)
    job.detail = {**job.detail, "turns_skipped_by_salience_gate": skipped_turns}
    if errors:
        job.detail["failed_sessions"] = len(failed_sessions)
        return job_fail(job, errors[-1])
    if not job.items_read:
        # Queued while another job was busy with the same KB, which took every waiting turn.
        job.finish(status=JobRun.Status.SKIPPED, error="no unprocessed turns were left (other jobs took them)")
        return job
    job.mode = job.mode or mode()
    job.finish(status=JobRun.Status.SUCCEEDED)
    services.kb_term_stats_refresh_if_due(kb=kb)
    services.kb_vector_index_if_due(kb=kb)
    return job


# How many of the turns the salience gate skipped a job run shows (with their text), for an operator to check.
SKIPPED_SHOWN = 20


def _skipped_show(job: JobRun, skipped: list[Turn]) -> None:
    """Note on the job run the first turns the salience gate skipped, so an operator sees what was left out."""
    shown = job.detail.get("skipped_turns", [])
    if skipped and len(shown) < SKIPPED_SHOWN:
        more = [f"{t.ref}: {t.text[:100]}" for t in skipped]
        job.detail = {**job.detail, "skipped_turns": (shown + more)[:SKIPPED_SHOWN]}


def _searched(extraction: Extraction, salient: list[Turn]) -> dict[int, str]:
    """With an LLM, the user turns to search beside their facts (message id: text as the statements read it,
    the speaker named): a detail no fact kept is still found. Offline the turns are their statements already."""
    if extraction.mode != Mode.LLM:
        return {}
    return {
        t.message_id: f"{t.speaker}: {t.text}" if t.speaker else t.text
        for t in salient
        if t.role == "user" and t.message_id
    }


def _by_owner(batches: list[tuple[CursorGuard, list[Turn]]]) -> list[list[tuple[CursorGuard, list[Turn]]]]:
    """The batches grouped by whose sessions they are: one extraction never mixes end users."""
    groups: dict[int | None, list] = {}
    for guard, batch in batches:
        groups.setdefault(guard.end_user_id, []).append((guard, batch))
    return list(groups.values())


def _extract_group(
    kb: KnowledgeBase,
    job: JobRun,
    group: list[tuple[CursorGuard, list[Turn]]],
    failed_sessions: set[int],
    errors: list[Exception],
) -> int:
    """Extract and apply one group of session batches (all of one owner); returns the turns the salience gate
    skipped."""
    owner = group[0][0].end_user_id
    turns = [t for _, batch in group for t in batch]
    job.items_read += len(turns)
    salient = [t for t in turns if is_salient(t.text)]
    _skipped_show(job, [t for t in turns if not is_salient(t.text)])
    try:
        # Nothing durable in the group: the cursors still advance, without an LLM call.
        extraction = extract(kb, salient, owner) if salient else Extraction([], [], mode())
        facts_apply(
            end_user_id=owner,
            kb=kb,
            extraction=extraction,
            turn_message_ids={t.ref: t.message_id for t in turns},
            turn_metadata={t.ref: t.metadata for t in turns if t.metadata},
            searched_turns=_searched(extraction, salient),
            job=job,
            source="chat",
            cursors=[guard for guard, _ in group],
        )
    except CursorMoved as exc:
        job.detail = {**job.detail, "note": str(exc)}
    except (llm.LLMError, embeddings.EmbeddingError) as exc:
        failed_sessions.update(guard.session_id for guard, _ in group)
        errors.append(exc)
    return len(turns) - len(salient)
