"""Job plumbing: a job that crashes is visible as failed, and a finished job is never run twice."""

from __future__ import annotations

import pytest

from kbsite.models import JobRun
from memories.tasks import job_run

pytestmark = pytest.mark.django_db


def _crash(job):
    raise KeyError("a bug, not a provider failure")


def test_an_unexpected_error_marks_the_run_failed_with_its_error(kb):
    """A crash is recorded on the run (for operators and the retry action) and still reaches django-q."""
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES)
    with pytest.raises(KeyError):
        job_run(job.pk, (JobRun.Kind.INGEST_MESSAGES,), _crash)
    job.refresh_from_db()
    assert job.status == JobRun.Status.FAILED and job.finished_at is not None
    assert job.error == "KeyError: 'a bug, not a provider failure'"


def test_finished_missing_or_other_kind_jobs_do_not_run(kb):
    """A re-delivered task of a finished job, a deleted job, or a job of another kind does nothing."""
    ran = []
    done = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.SUCCEEDED)
    other = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    for job_id in (done.pk, other.pk, 999_999):
        assert job_run(job_id, (JobRun.Kind.INGEST_MESSAGES,), ran.append) is None
    assert ran == []
