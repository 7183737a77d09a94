"""The one job path: a run row and its task queued on commit, "already queued" kept single, crashes visible as
failed runs, finished jobs never run twice, and a failed job of any kind queued again."""

from __future__ import annotations

import pytest
from django.db import transaction
from django_q.models import OrmQ

from kbsite import jobs
from kbsite.models import JobRun
from knowledge import services as knowledge_services
from memories import consolidation, ingest, tasks
from memories.archive import enqueue_archive
from memories.ingest import claims
from memories.models import Memory, Session
from tests.conftest import run_queued_tasks

pytestmark = pytest.mark.django_db


def _queued_tasks() -> list[tuple[str, tuple]]:
    return [(task.func(), task.args()) for task in OrmQ.objects.all()]


def test_a_job_is_queued_when_its_transaction_commits_and_not_if_it_rolls_back(kb):
    """The task is handed to the workers on commit (they never look for a row that is not there yet); a
    rolled-back request leaves neither a run row nor a task."""
    with transaction.atomic():
        job = jobs.job_enqueue(kind=JobRun.Kind.CONSOLIDATE, kb=kb, target="now")
        assert _queued_tasks() == []
    assert _queued_tasks() == [("memories.tasks.run_consolidation", (job.pk,))]
    with pytest.raises(RuntimeError), transaction.atomic():
        jobs.job_enqueue(kind=JobRun.Kind.CONSOLIDATE, kb=kb)
        raise RuntimeError("the request failed")
    assert JobRun.objects.count() == 1 and len(_queued_tasks()) == 1


def test_a_unique_job_already_waiting_is_returned_instead_of_a_second(kb):
    """Unique jobs (extraction, archives, the sync) stay single while waiting, per KB and object; once the
    waiting one has started, a new one is queued."""
    first = ingest.enqueue_extract(kb=kb)
    assert ingest.enqueue_extract(kb=kb) == first
    session = Session.objects.create(kb=kb, external_id="s1")
    other = Session.objects.create(kb=kb, external_id="s2")
    archive = enqueue_archive(session=session, keep=0)
    assert enqueue_archive(session=session, keep=0) == archive
    assert enqueue_archive(session=other, keep=0) != archive
    first.start()
    assert ingest.enqueue_extract(kb=kb) != first


def test_an_unexpected_error_marks_the_run_failed_with_its_error(kb, monkeypatch):
    """A crash in a job's work is recorded on the run (for operators and the retry action) and still reaches
    django-q."""

    def crash(*, job):
        raise KeyError("a bug, not a provider failure")

    monkeypatch.setattr(ingest, "extract_pending", crash)
    job = ingest.enqueue_extract(kb=kb)
    with pytest.raises(KeyError):
        tasks.extract_pending(job.pk)
    job.refresh_from_db()
    assert job.status == JobRun.Status.FAILED and job.finished_at is not None
    assert job.error == "KeyError: 'a bug, not a provider failure'"


def test_finished_missing_or_other_kind_jobs_do_not_run(kb):
    """A re-delivered task of a finished job, a deleted job, or a job of another kind does nothing: the turns
    waiting to be extracted still wait (the job queued for them extracts them), and the runs stay as they were."""
    turns = [{"external_id": "m1", "speaker": "Ann", "content": "I live in Porto and work as a nurse."}]
    ingest.messages_receive(kb=kb, session_id="s1", messages=turns)
    done = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.SUCCEEDED)
    other = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    for job_id in (done.pk, other.pk, 999_999):
        assert tasks.extract_pending(job_id) is None
    assert not Memory.objects.exists() and Session.objects.get().extracted_through == 0
    assert JobRun.objects.get(pk=done.pk).status == JobRun.Status.SUCCEEDED
    assert JobRun.objects.get(pk=other.pk).status == JobRun.Status.QUEUED
    run_queued_tasks()
    assert Memory.objects.filter(kb=kb).exists()  # what the re-delivered tasks would have done, had they run


def _fail(job: JobRun) -> JobRun:
    job.refresh_from_db()
    job.finish(status=JobRun.Status.FAILED, error="provider down")
    return job


def test_a_failed_job_of_every_kind_is_queued_again(kb):
    """Retry knows every kind: each failed job comes back as a new job of its kind, for the same KB and object,
    and the failed run says what it was retried as."""
    session = Session.objects.create(kb=kb, external_id="s1")
    document, _ = knowledge_services.document_receive_text(kb=kb, content="Bob keeps the door code.", slug="door")
    item, _ = ingest.text_receive(kb=kb, text="Alice plays the cello.", source="api")
    failed = [
        ingest.enqueue_extract(kb=kb),
        consolidation.enqueue_consolidation(kb=kb),
        knowledge_services.enqueue_sync(),
        JobRun.objects.get(kind=JobRun.Kind.DOCUMENT),
        JobRun.objects.get(kind=JobRun.Kind.INGEST_TEXT),
        enqueue_archive(session=session, keep=3),
    ]
    for job in failed:
        _fail(job)
    for job in failed:
        new = jobs.job_retry(job=job)
        assert new is not None and new.pk != job.pk, job.kind
        assert (new.kind, new.kb_id, new.object) == (job.kind, job.kb_id, job.object)
        assert new.status == JobRun.Status.QUEUED
        job.refresh_from_db()
        assert job.detail["retried_as"] == new.pk
    assert JobRun.objects.get(kind=JobRun.Kind.ARCHIVE, status=JobRun.Status.QUEUED).detail == {"keep": 3}
    document.refresh_from_db()
    assert document.status == document.Status.PENDING  # the document shows it is waiting again
    assert jobs.job_retry(job=JobRun.objects.filter(status=JobRun.Status.QUEUED).first()) is None  # only failed
    run_queued_tasks()
    assert (
        not JobRun.objects.filter(status__in=[JobRun.Status.QUEUED, JobRun.Status.FAILED])
        .exclude(pk__in=[job.pk for job in failed])
        .exists()
    )


@pytest.mark.django_db(transaction=True)
def test_a_run_is_never_shown_failed_while_its_input_was_not_handed_back(kb, monkeypatch):
    """Failing a run writes its status and hands its input back (the document shown failed) in one transaction:
    where handing it back fails, the run is not left failed with its document still "processing" (as a reader
    between the two writes saw it before); it stays as it was, for the healing to take up."""
    from dataclasses import replace

    from django.db import DatabaseError

    document, _ = knowledge_services.document_receive_text(kb=kb, content="Bob keeps the door code.", slug="door")
    job = JobRun.objects.get(kind=JobRun.Kind.DOCUMENT)

    def broken(job, reason):
        raise DatabaseError("the connection went away")

    monkeypatch.setitem(jobs._TYPES, job.kind, replace(jobs._TYPES[job.kind], release=broken))
    with pytest.raises(DatabaseError):
        jobs.job_fail(job, "stopped at the job time limit")
    job.refresh_from_db()
    assert job.status != JobRun.Status.FAILED and not job.error
    monkeypatch.undo()
    jobs.job_fail(job, "stopped at the job time limit")
    job.refresh_from_db()
    document.refresh_from_db()
    assert job.status == JobRun.Status.FAILED and document.status == document.Status.FAILED
    assert "stopped at the job time limit" in document.error


def test_failing_a_job_hands_back_the_sessions_it_claimed(kb):
    """A run that ended without releasing its claims (killed, stopped) gives them back when it is failed: the
    turns do not wait for the claim to run out."""
    ingest.messages_receive(kb=kb, session_id="s1", messages=[{"external_id": "m1", "content": "I live in Porto."}])
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    claimed, _ = claims.sessions_claim(kb, job, set(), budget=100)
    assert Session.objects.filter(claimed_by=job).count() == 1 == len(claimed)
    jobs.job_fail(job, "the worker died")
    job.refresh_from_db()
    assert job.status == JobRun.Status.FAILED and job.error == "the worker died"
    assert not Session.objects.filter(claimed_by__isnull=False).exists()
