"""The extraction job over posted turns: claim sessions, extract, apply, advance their cursors."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from kbsite import budgets
from kbsite.ai import embeddings, llm
from kbsite.jobs import job_wait
from kbsite.models import JobRun, KnowledgeBase, Mode
from memories import services
from memories.ingest.apply import CursorGuard, CursorMoved, facts_apply
from memories.ingest.claims import claimed_batches, sessions_claim, sessions_release
from memories.ingest.extraction import Extraction, Turn, kept
from memories.ingest.facts import extract, job_fail, mode
from memories.ingest.receive import enqueue_extract


def extract_pending(*, job: JobRun) -> JobRun:
    """Extract facts from the KB's turns past their session cursors.

    The job claims sessions holding about EXTRACT_CHUNK_TURNS new turns at a time. With an LLM: one
    call per session batch, each applied on its own, sessions in order. Offline: the chunk is extracted,
    embedded and applied together, and while more turns wait the job queues a second one, so that all
    workers share one KB's backlog (their applies still take turns under the KB's lock); each claims at
    most its even share of the waiting turns, so the workers finish together (see claims.sessions_claim).

    The bot's LLM budget is read before each claim and each LLM batch (kbsite.budgets): once it is spent, the
    remaining batches go offline (each memory says so in its mode; the run's detail counts them) or, as the bot
    chose, the job stops: the batches not applied keep their cursors, their claims are released, and the run
    waits (WAITING) until tokens are left, when it is queued again. A run an operator forced offline
    (kbsite.jobs.job_force_offline) extracts every batch offline, alone.
    """
    kb = job.kb
    job.start()
    run = _Run()
    while not run.waiting:
        state = budgets.llm_state(kb.bot_id, job=job)
        if state == budgets.WAIT:
            run.waiting = True
            break
        offline = state != budgets.LLM
        # Workers that can share the KB's backlog offline: not a run forced offline, whose sharers would wait.
        sharers = settings.Q_CLUSTER["workers"] if offline and not budgets.forced_offline(job) else 1
        claimed, more = sessions_claim(kb, job, run.failed_sessions, settings.EXTRACT_CHUNK_TURNS, sharers)
        if not claimed:
            break
        try:
            if more and sharers > 1:
                enqueue_extract(kb=kb)
            batches = claimed_batches(claimed)
            groups = _by_owner(batches) if offline else [[b] for b in batches]
            _extract_groups(kb, job, groups, state, run)
        finally:
            sessions_release(job, claimed)  # what was not applied keeps its cursor: the next job takes it up
    return _finish(job, kb, run)


@dataclass
class _Run:
    """What an extraction run has met so far: turns skipped by the salience gate, session batches extracted offline
    because the LLM budget was spent (or an operator forced the run offline), sessions that failed with their
    errors, and whether it stopped to wait."""

    skipped_turns: int = 0
    held_batches: int = 0
    waiting: bool = False
    failed_sessions: set[int] = field(default_factory=set)
    errors: list[Exception] = field(default_factory=list)


def _extract_groups(kb: KnowledgeBase, job: JobRun, groups: list, state: str, run: _Run) -> None:
    """Extract and apply each group of a claim in turn, each exactly once. With the LLM, the budget is read again
    before each: spent, the group (one session's batch) goes offline, or the rest of the claim is left to wait."""
    for group in groups:
        if state == budgets.LLM:
            state = budgets.llm_state(kb.bot_id, job=job)
        if state == budgets.WAIT:
            run.waiting = True
            return
        if budgets.held(state):
            run.held_batches += len(group)
        offline = state != budgets.LLM  # once offline, the rest of the claim stays so
        run.skipped_turns += _extract_group(kb, job, group, run.failed_sessions, run.errors, offline=offline)


def _finish(job: JobRun, kb: KnowledgeBase, run: _Run) -> JobRun:
    """End the run: failed (its sessions wait for the retry), waiting for the budget, skipped or succeeded."""
    job.detail = {**job.detail, "turns_skipped_by_salience_gate": run.skipped_turns}
    if run.held_batches:
        key, why = budgets.offline_why(job)  # the spent budget, or an operator's "run now offline"
        job.detail[key] = f"{why}: {run.held_batches} session batches extracted offline"
    if run.errors:
        job.detail["failed_sessions"] = len(run.failed_sessions)
        return job_fail(job, run.errors[-1])
    if run.waiting and not job.items_read:
        # Turns posted while the budget is spent each queue a run: one waits for them all (it takes up every turn).
        other = JobRun.objects.filter(kb=kb, kind=job.kind, status=JobRun.Status.WAITING).exclude(pk=job.pk).first()
        if other is not None:
            job.finish(status=JobRun.Status.SKIPPED, error=f"{budgets.SPENT}: run {other.pk} waits for these turns")
            return job
    if run.waiting:
        return job_wait(
            job, f"{budgets.SPENT}: the turns wait until tokens are left (the next day, UTC, or a raised budget)"
        )
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
    *,
    offline: bool = False,
) -> int:
    """Extract and apply one group of session batches (all of one owner), by the LLM unless ``offline``; returns
    the turns the salience gate skipped."""
    owner = group[0][0].end_user_id
    turns = [t for _, batch in group for t in batch]
    job.items_read += len(turns)
    read = {t.ref: kept(t) for t in turns}
    salient = [t for t in turns if read[t.ref]]
    _skipped_show(job, [t for t in turns if not read[t.ref]])
    try:
        # Nothing durable in the group: the cursors still advance, without an LLM call.
        if salient:
            extraction = extract(kb, salient, owner, offline=offline)
        else:
            extraction = Extraction([], [], mode(offline=offline))
        facts_apply(
            end_user_id=owner,
            kb=kb,
            extraction=extraction,
            turn_message_ids={t.ref: t.message_id for t in turns},
            turn_metadata={t.ref: t.metadata for t in turns if t.metadata},
            turn_languages={t.ref: t.language for t in turns},
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
