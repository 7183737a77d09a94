"""The one way background work is queued, run and retried.

A job is a :class:`~kbsite.models.JobRun` row (what to do, for which KB and object; later, what it did) and a
django-q task that takes the row's id. :func:`job_enqueue` creates the row and queues the task when the
transaction commits, so a task never looks for a row that is not there yet and a rolled-back request queues
nothing. :func:`job_task` makes a domain function the task of one kind of job. :func:`job_retry` queues a
failed job's input again, for every kind. Tasks stay thin: they take the job, and call a service.
"""

from __future__ import annotations

import functools
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import psutil
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from django_q.exceptions import TimeoutException
from django_q.models import OrmQ
from django_q.tasks import async_task

from kbsite import budgets, locks
from kbsite.ai import llm
from kbsite.locks import Lock
from kbsite.models import JobRun, KnowledgeBase
from kbsite.signals import job_failed, jobs_healed
from kbsite.stats import stats_add, usage_add

logger = logging.getLogger(__name__)

Work = Callable[[JobRun], JobRun]
Retry = Callable[[JobRun], "JobRun | None"]
Release = Callable[[JobRun, str], None]


@dataclass(frozen=True)
class JobType:
    """How jobs of one kind run (the dotted path of their task), how a failed one is queued again, and how the input
    of one that ended unexpectedly is handed back (claims released, the item or document shown failed, the file
    parked with its reason)."""

    task: str
    retry: Retry
    release: Release | None = None


_TYPES: dict[str, JobType] = {}


def task_enqueue(func: str, *args, group: str | None = None) -> None:
    """Queue the django-q task ``func(*args)`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: async_task(func, *args, group=group))


def job_enqueue(
    *,
    kind: str,
    kb: KnowledgeBase | None = None,
    obj: models.Model | None = None,
    target: str = "",
    detail: dict | None = None,
    unique: bool = False,
) -> JobRun:
    """Create the run row of a job of ``kind`` and queue its task on commit.

    ``unique``: when a job of the same kind for the same KB and object is already waiting, return that one
    instead; it has not started, so it will see this input too.
    """
    with transaction.atomic():
        if unique:
            queued = _queued(kind, kb, obj).first()
            if queued is not None:
                return queued
        job = JobRun.objects.create(kind=kind, kb=kb, object=obj, target=target[:500], detail=detail or {})
        task_enqueue(_job_type(kind).task, job.pk, group=f"kb-{kb.pk}" if kb else None)
    return job


def _queued(kind: str, kb: KnowledgeBase | None, obj: models.Model | None):
    queued = JobRun.objects.filter(kind=kind, kb=kb, status=JobRun.Status.QUEUED).only("pk")
    if obj is None:
        return queued.filter(object_id__isnull=True)
    return queued.filter(object_type=ContentType.objects.get_for_model(obj), object_id=obj.pk)


def job_task(
    kind: str, *, retry: Retry | None = None, release: Release | None = None
) -> Callable[[Work], Callable[[int], str | None]]:
    """Make ``work(job) -> job`` the django-q task of jobs of ``kind``; the task takes the job's id.

    ``retry(job)`` queues a failed job's input again (default: the same kind, KB, object and target);
    ``release(job, reason)`` hands back the input of a job that ended unexpectedly (see job_run).
    """

    def register(work: Work) -> Callable[[int], str | None]:
        @functools.wraps(work)
        def task(job_id: int) -> str | None:
            job = JobRun.objects.select_related("kb__bot").filter(pk=job_id).first()
            # RUNNING: django-q re-delivers a task whose worker died; every job is safe to run twice.
            if job is None or job.kind != kind or job.status not in (JobRun.Status.QUEUED, JobRun.Status.RUNNING):
                return None
            return job_run(job, work).status

        _TYPES[kind] = JobType(task=f"{work.__module__}.{work.__name__}", retry=retry or requeue, release=release)
        return task

    return register


def job_run(job: JobRun, work: Work) -> JobRun:
    """Run ``work`` on ``job`` in this process.

    Whatever ends it otherwise (a bug, django-q's time limit, which it raises as SystemExit, a shutdown), the run
    is marked failed with the reason and its input handed back (:func:`job_fail`), so an operator sees it among
    the failed jobs and can retry it; the exception is then raised for django-q to record as well. Provider
    failures are recorded by the work itself. Either way a failed run's bot is told (``job_failed``: its webhooks).
    """
    with llm.metered() as meter:
        try:
            job = work(job)
        except BaseException as exc:
            job_fail(job, _reason(exc))
            _job_stats(job, meter, failed=True)
            raise
    failed = job.status == JobRun.Status.FAILED
    if failed:  # the work recorded the failure on the run (JobRun.fail, JobRun.finish)
        job_failed.send(sender=JobRun, job=job)
    _job_stats(job, meter, failed=failed)
    return job


def _job_stats(job: JobRun, meter: llm.Meter, *, failed: bool) -> None:
    """Record what the run spent on its row (LLM calls, texts embedded; its work counts its tokens), and add what it
    did and spent to its KB's statistics and its bot's usage of the day."""
    job.llm_calls, job.embeddings = meter.calls, meter.embeddings
    try:
        JobRun.objects.filter(pk=job.pk).update(llm_calls=job.llm_calls, embeddings=job.embeddings)
    except DatabaseError:  # what stopped the job may have broken the connection: the figures are not worth more
        logger.warning("job %s: its usage was not recorded", job.pk, exc_info=True)
    if job.kb_id is None:
        return
    stats_add(
        job.kb_id,
        llm_calls=meter.calls,
        tokens_in=meter.tokens_in,
        tokens_out=meter.tokens_out,
        facts_added=job.facts_added,
        facts_superseded=job.facts_superseded,
        facts_quarantined=job.facts_quarantined,
        jobs_failed=int(failed),
        jobs_succeeded=int(job.status == JobRun.Status.SUCCEEDED),
    )
    if settings.USAGE_ACCOUNTING:
        usage_add(
            bot_id=job.kb.bot_id,
            kb_id=job.kb_id,
            end_user_id=_end_user_id(job),
            jobs=1,
            llm_calls=meter.calls,
            tokens_in=meter.tokens_in,
            tokens_out=meter.tokens_out,
            embeddings=meter.embeddings,
            server_ms=meter.server_ms(),
        )


def _end_user_id(job: JobRun) -> int | None:
    """The end user whose input the job worked on (an ingest item or document of theirs); None for shared input or
    input of many (a KB's unprocessed turns)."""
    try:
        return getattr(job.object, "end_user_id", None) if job.object_id else None
    except DatabaseError:
        return None


def job_fail(job: JobRun, reason: str, *, retry_now: bool = False) -> None:
    """Mark ``job`` failed with ``reason`` (retried by itself, backing off, while tries remain; ``retry_now``: at
    once, for a run lost with its worker) and hand its input back (its kind's release) in the same transaction,
    whatever state the database connection was left in by what stopped the job."""
    retry_at = job.next_retry_at()
    if retry_at is not None and retry_now:
        retry_at = timezone.now()
    if retry_at is None:
        reason = f"{reason} (gave up after {job.tries} tries; retry it from the admin)"
    for attempt in (1, 2):
        try:
            # One transaction: whoever sees the run failed sees its input handed back (a document failed with it).
            with transaction.atomic():
                JobRun.objects.filter(pk=job.pk).update(
                    status=JobRun.Status.FAILED, error=reason[:2000], finished_at=timezone.now(), retry_at=retry_at
                )
                job_failed.send(sender=JobRun, job=job, error=reason[:2000], retry_at=retry_at)
                job_type = _TYPES.get(job.kind)
                if job_type and job_type.release:
                    job_type.release(job, reason)
            return
        except DatabaseError:
            if attempt == 2:
                raise
            # Stopped in the middle of a query, the connection may be unusable: the next use opens a new one.
            connection.close()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutException):
        return f"stopped at the job time limit ({settings.Q_CLUSTER['timeout']} s; JOB_TIMEOUT_SECONDS)"
    if isinstance(exc, SystemExit | KeyboardInterrupt):
        return "stopped: the worker was shut down while running it"
    return f"{type(exc).__name__}: {exc}"


def job_retry(*, job: JobRun, automatic: bool = False) -> JobRun | None:
    """Queue a failed job's input again; the failed run becomes history ("retried"). Returns the new job, or None
    when nothing is left to retry. An operator's retry starts the input's tries again; an automatic one counts on."""
    if job.status != JobRun.Status.FAILED:
        return None
    with transaction.atomic():
        new = _job_type(job.kind).retry(job)
        if new is not None:
            JobRun.objects.filter(pk=new.pk, status=JobRun.Status.QUEUED).update(
                tries=job.tries + 1 if automatic else 1
            )
        _forced_carry(new, budgets.forced_choice(job.detail))
        job.detail = {**job.detail, "retried_as": new.pk if new else None}
        job.status, job.retry_at = JobRun.Status.RETRIED, None
        job.save(update_fields=["detail", "status", "retry_at"])
    return new


def job_wait(job: JobRun, reason: str) -> JobRun:
    """Finish ``job`` as waiting for its bot's LLM budget, ``reason`` saying what waits; its input is left where it
    was (cursors, the item's progress) and is queued again once tokens are left (:func:`jobs_resume_waiting`)."""
    job.finish(status=JobRun.Status.WAITING, error=reason)
    return job


def jobs_resume_waiting(*, bot_id: int | None = None) -> int:
    """Queue again the input of each job waiting for its bot's LLM budget (of ``bot_id``, or of every bot) once the
    budget allows (a new day, a raised or removed budget, the bot's choice changed to offline); the waiting run is
    finished as what it had done by then. Part of the jobs' healing (every minute), and run when a bot's settings
    are saved. Returns the jobs queued again."""
    waiting = JobRun.objects.filter(status=JobRun.Status.WAITING, kb__isnull=False).select_related("kb")
    if bot_id is not None:
        waiting = waiting.filter(kb__bot_id=bot_id)
    states: dict[int, str] = {}
    resumed = 0
    for job in waiting.order_by("id"):
        bot = job.kb.bot_id
        if bot not in states:
            states[bot] = budgets.llm_state(bot)
        # A run forced offline that waited all the same (forced as it was stopping) is not held by the budget.
        if states[bot] == budgets.WAIT and not budgets.forced_choice(job.detail):
            continue
        with transaction.atomic():
            job = _waiting_locked(job)
            if job is None:
                continue
            new = _waiting_take_up(job, noted="resumed_as")
        resumed += new is not None
    return resumed


def job_force_offline(*, job: JobRun, by: str) -> JobRun | None:
    """An operator's "run now offline" of a job waiting for its bot's LLM budget: its input is queued again at once
    for a new run that extracts it with the heuristics whatever the budget (``budgets.FORCED`` in its detail, read
    by :func:`kbsite.budgets.llm_state` for that run alone), spending no LLM tokens; the bot's settings are not
    changed and its other runs still wait. ``by`` says who forced it (on the new run). Returns the new run, or None
    when the job is not waiting (any more) or its input is gone."""
    with transaction.atomic():
        job = _waiting_locked(job)
        if job is None:
            return None
        # A run of the same input already queued (a unique kind) is the one that takes it up, so it is forced. A
        # worker may have loaded it a moment ago: it reads the choice from the row (budgets.forced_offline), and
        # its saves keep it (JobRun.save_work).
        choice = {budgets.FORCED: budgets.OFFLINE, "forced_for": job.pk, "forced_by": by}
        new = _waiting_take_up(job, noted="forced_offline_as", forced=choice)
    return new


def _waiting_locked(job: JobRun) -> JobRun | None:
    """The waiting run's row as it is now, locked; None once it no longer waits. Locked because the healing's resume
    and operators forcing it may take it up at the same time: one does, the others find it done."""
    locked = JobRun.objects.select_for_update(of=("self",)).select_related("kb").filter(pk=job.pk)
    return locked.filter(status=JobRun.Status.WAITING).first()


def _waiting_take_up(job: JobRun, *, noted: str, forced: dict | None = None) -> JobRun | None:
    """Queue a waiting run's input again (its kind's retry) and finish the run as what it had done by then, noting
    the new run under ``noted``. The new run is forced offline by ``forced`` (an operator's choice), or as the
    waiting run was. Inside the caller's transaction, the row locked."""
    new = _job_type(job.kind).retry(job)
    _forced_carry(new, forced or budgets.forced_choice(job.detail))
    job.detail = {**job.detail, noted: new.pk if new else None}
    job.status = JobRun.Status.SUCCEEDED if job.items_read else JobRun.Status.SKIPPED
    job.save(update_fields=["detail", "status"])
    return new


def _forced_carry(new: JobRun | None, choice: dict) -> None:
    """Write a "run now offline" ``choice`` (budgets.forced_choice: the choice, who made it, for which run) on
    ``new``, the run that takes up an input: forced at once, or carried on from a forced run that failed (its retry)
    or waited (its resume), which still runs offline. Locked as a worker's own saves of ``new`` are
    (JobRun.save_work), so neither undoes the other."""
    if new is None or not choice:
        return
    new = JobRun.objects.select_for_update().get(pk=new.pk)
    new.detail = {**new.detail, **choice}
    new.save(update_fields=["detail"])


def requeue(job: JobRun) -> JobRun:
    """The default retry: a job of the same kind for the same KB, object and target."""
    return job_enqueue(kind=job.kind, kb=job.kb, obj=job.object, target=job.target, unique=True)


def _job_type(kind: str) -> JobType:
    try:
        return _TYPES[kind]
    except KeyError:
        raise LookupError(f"no task is registered for jobs of kind {kind!r}") from None


# --- Healing ---------------------------------------------------------------------------------------------


def jobs_heal() -> dict[str, int]:
    """Hand back what stopped work left behind and queue the retries that are due. Runs when a job worker starts
    and every minute; one at a time. Returns what it did, by kind of repair.

    - A running job whose worker process is gone (killed, restarted), or that has run past the time limit without
      finishing, is failed with the reason, its input handed back (its kind's release), retried by itself.
    - A queued job whose task was lost (never reached the queue, or dropped from it) gets its task again.
    - A failed job whose retry is due is queued again.
    - A job waiting for its bot's LLM budget is queued again once tokens are left (a new day, a raised budget).
    - Then the domain apps sweep what only they know (``jobs_healed``): claims, documents, inbox files.
    """
    done = {"lost_runs": 0, "lost_tasks": 0, "retries": 0, "budget_waits": 0}
    with transaction.atomic():
        if not locks.try_hold(Lock.HEAL, 0):
            return done  # another worker is healing right now
        for job, reason in _lost_runs():
            job_fail(job, reason, retry_now=True)
            done["lost_runs"] += 1
        done["lost_tasks"] = _lost_tasks_requeue()
        done["budget_waits"] = jobs_resume_waiting()
        for job in JobRun.objects.filter(status=JobRun.Status.FAILED, retry_at__lte=timezone.now()).order_by("id"):
            done["retries"] += job_retry(job=job, automatic=True) is not None
        for _, swept in jobs_healed.send(sender=jobs_heal):
            done.update(swept or {})
    if any(done.values()):
        logger.info("jobs healed: %s", done)
    return done


def _lost_runs():
    """(job, reason) for each running job that no process is running any more."""
    too_old = timezone.now() - timedelta(seconds=settings.Q_CLUSTER["timeout"] + 60)
    host = socket.gethostname()
    for job in JobRun.objects.filter(status=JobRun.Status.RUNNING).select_related("kb__bot"):
        if job.started_at and job.started_at < too_old:
            yield job, "it ran past the job time limit without finishing: its worker was lost"
        elif _worker_gone(job, host):
            yield job, "its worker process stopped (killed or restarted) while running it"


def _worker_gone(job: JobRun, host: str) -> bool:
    """Whether the process that started ``job`` on this machine has stopped (a pid since reused counts as stopped).
    A job on another machine is judged by its age alone."""
    worker_host, _, pid = job.worker.rpartition(":")
    if worker_host != host or not pid.isdigit() or job.started_at is None:
        return False
    try:
        process = psutil.Process(int(pid))
        return process.status() == psutil.STATUS_ZOMBIE or process.create_time() > job.started_at.timestamp() + 1
    except psutil.NoSuchProcess:
        return True


def _lost_tasks_requeue() -> int:
    """Queue the task again of each job waiting longer than django-q takes to deliver one, whose task is not in the
    queue (the process that created it stopped between its commit and the queueing)."""
    waiting = JobRun.objects.filter(
        status=JobRun.Status.QUEUED,
        created_at__lt=timezone.now() - timedelta(seconds=settings.Q_CLUSTER["retry"] + 60),
    )
    if not waiting.exists():
        return 0
    queued = {task.args()[0] for task in OrmQ.objects.all() if task.args()}
    lost = [job for job in waiting.select_related("kb") if job.pk not in queued and job.kind in _TYPES]
    for job in lost:
        task_enqueue(_job_type(job.kind).task, job.pk, group=f"kb-{job.kb_id}" if job.kb_id else None)
    return len(lost)
