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
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from django_q.exceptions import TimeoutException
from django_q.tasks import async_task

from kbsite.models import JobRun, KnowledgeBase

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
    failures are recorded by the work itself.
    """
    try:
        return work(job)
    except BaseException as exc:
        job_fail(job, _reason(exc))
        raise


def job_fail(job: JobRun, reason: str) -> None:
    """Mark ``job`` failed with ``reason`` and hand its input back (its kind's release), whatever state the
    database connection was left in by what stopped the job."""
    for attempt in (1, 2):
        try:
            JobRun.objects.filter(pk=job.pk).update(
                status=JobRun.Status.FAILED, error=reason[:2000], finished_at=timezone.now()
            )
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


def job_retry(*, job: JobRun) -> JobRun | None:
    """Queue a failed job's input again. Returns the new job, or None when nothing is left to retry."""
    if job.status != JobRun.Status.FAILED:
        return None
    with transaction.atomic():
        new = _job_type(job.kind).retry(job)
        job.detail = {**job.detail, "retried_as": new.pk if new else None}
        job.save(update_fields=["detail"])
    return new


def requeue(job: JobRun) -> JobRun:
    """The default retry: a job of the same kind for the same KB, object and target."""
    return job_enqueue(kind=job.kind, kb=job.kb, obj=job.object, target=job.target, unique=True)


def _job_type(kind: str) -> JobType:
    try:
        return _TYPES[kind]
    except KeyError:
        raise LookupError(f"no task is registered for jobs of kind {kind!r}") from None
