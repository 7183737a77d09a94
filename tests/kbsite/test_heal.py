"""The jobs' healing: work a stopped worker left behind is handed back and retried, failed inputs come back by
themselves with backoff until their tries are spent, and the counts show the present."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ

from kbsite import jobs
from kbsite.models import JobRun
from knowledge import services as knowledge_services
from knowledge.models import Document
from memories import ingest
from memories.ingest import claims
from memories.models import Memory, Session
from memories.selectors import kb_list_with_counts
from tests.conftest import run_queued_tasks

pytestmark = pytest.mark.django_db


def _dead_pid() -> int:
    """The pid of a process of this machine that has exited."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _posted(kb, n: int = 3) -> JobRun:
    turns = [{"external_id": f"m{i}", "speaker": "Ana", "content": f"Ana keeps {i} goats in Porto."} for i in range(n)]
    ingest.messages_receive(kb=kb, session_id="s1", messages=turns)
    return JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)


def _running_on(job: JobRun, worker: str, started_ago: float = 0) -> None:
    started = timezone.now() - timedelta(seconds=started_ago)
    JobRun.objects.filter(pk=job.pk).update(status=JobRun.Status.RUNNING, worker=worker, started_at=started)


def test_a_run_whose_worker_was_killed_is_failed_handed_back_and_retried_at_once(kb):
    """A worker killed mid-job leaves its run "running" and its sessions claimed; the sweep (run by every worker as
    it starts, and every minute) fails it with the reason, releases the claims and queues the input again at
    once, so the turns are extracted within the minute instead of after the claims run out."""
    job = _posted(kb)
    OrmQ.objects.all().delete()  # the killed worker had taken the task
    _running_on(job, f"{socket.gethostname()}:{_dead_pid()}")
    claims.sessions_claim(kb, job, set(), budget=100)
    done = jobs.jobs_heal()
    job.refresh_from_db()
    assert done["lost_runs"] == 1 and done["retries"] == 1
    assert job.status == JobRun.Status.RETRIED and "worker process stopped" in job.error
    assert not Session.objects.filter(claimed_by__isnull=False).exists()
    retry = JobRun.objects.get(status=JobRun.Status.QUEUED)
    assert (retry.kind, retry.tries) == (JobRun.Kind.INGEST_MESSAGES, 2)
    run_queued_tasks()
    assert Memory.objects.count() == 3 and Session.objects.get().extracted_through == max(
        Session.objects.get().messages.values_list("id", flat=True)
    )


def test_live_runs_are_left_alone(kb):
    """A run of a live process here, or of another machine within the time limit, is not touched."""
    mine, theirs = _posted(kb), JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    _running_on(mine, f"{socket.gethostname()}:{os.getpid()}")
    _running_on(theirs, "another-machine:4242", started_ago=30)
    assert jobs.jobs_heal()["lost_runs"] == 0
    assert set(JobRun.objects.values_list("status", flat=True)) == {JobRun.Status.RUNNING}


def test_a_run_past_the_time_limit_on_another_machine_is_failed(kb, settings):
    """A machine that vanished cannot be asked about its processes: a run older than the time limit is lost."""
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    _running_on(job, "another-machine:4242", started_ago=settings.Q_CLUSTER["timeout"] + 120)
    jobs.jobs_heal()
    job.refresh_from_db()
    assert job.status == JobRun.Status.RETRIED and "past the job time limit" in job.error


def test_a_queued_job_whose_task_was_lost_gets_its_task_again(kb, settings):
    """A run left waiting with no task in the queue (its process stopped between the commit and the queueing) is
    queued again once django-q would surely have delivered it; a run whose task is waiting is not doubled."""
    lost, waiting = _posted(kb), jobs.job_enqueue(kind=JobRun.Kind.CONSOLIDATE, kb=kb)
    long_ago = timezone.now() - timedelta(seconds=settings.Q_CLUSTER["retry"] + 120)
    JobRun.objects.update(created_at=long_ago)
    OrmQ.objects.exclude(pk=OrmQ.objects.order_by("-id").first().pk).delete()  # only the consolidation's task left
    assert jobs.jobs_heal()["lost_tasks"] == 1
    assert sorted(task.args()[0] for task in OrmQ.objects.all()) == sorted([lost.pk, waiting.pk])


def test_a_failed_input_comes_back_by_itself_with_backoff_until_its_tries_are_spent(kb, settings):
    """A failure that may pass is retried by itself: JOB_RETRY_SECONDS later, doubling; after JOB_RETRIES tries it
    stays failed and says so, for an operator to retry."""
    settings.JOB_RETRIES, settings.JOB_RETRY_SECONDS, settings.JOB_RETRY_MAX_SECONDS = 3, 10, 15
    job = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    job.fail("LLMError: LLM answered HTTP 503", retryable=True)
    assert 9 <= (job.retry_at - timezone.now()).total_seconds() <= 10
    assert jobs.jobs_heal()["retries"] == 0  # not due yet
    JobRun.objects.filter(pk=job.pk).update(retry_at=timezone.now())
    assert jobs.jobs_heal()["retries"] == 1
    second = JobRun.objects.get(status=JobRun.Status.QUEUED)
    second.fail("LLMError: LLM answered HTTP 503", retryable=True)
    assert second.tries == 2 and 14 <= (second.retry_at - timezone.now()).total_seconds() <= 15  # capped
    JobRun.objects.filter(pk=second.pk).update(tries=3)
    second.refresh_from_db()
    second.fail("LLMError: LLM answered HTTP 503", retryable=True)
    assert second.retry_at is None and "gave up after 3 tries" in second.error
    JobRun.objects.filter(pk=job.pk).update(status=JobRun.Status.FAILED, retry_at=None)
    assert jobs.job_retry(job=JobRun.objects.get(pk=job.pk)).tries == 1  # an operator's retry starts again


def test_extraction_resumes_by_itself_after_an_llm_outage_and_the_counts_show_the_present(api, kb, fake_llm):
    """While the LLM answers 500s and time-outs the extraction fails and waits; once it answers again the waiting
    turns are extracted with no operator, and the KB no longer counts the failure."""
    for _ in range(3):  # the job's own attempts: LLM_MAX_RETRIES + 1
        fake_llm.reply_status(500)
    _posted(kb, n=2)
    run_queued_tasks()
    failed = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    assert failed.status == JobRun.Status.FAILED and failed.retry_at is not None
    assert api.get("/api/v1/kbs/notes/").json()["failed_jobs"] == 1
    fake_llm.reply_json({"add": [{"text": "Ana keeps goats in Porto.", "source_turns": ["@all"]}]})
    JobRun.objects.filter(pk=failed.pk).update(retry_at=timezone.now())  # the backoff has passed
    jobs.jobs_heal()
    run_queued_tasks()
    assert Memory.objects.get().text == "Ana keeps goats in Porto."
    counts = api.get("/api/v1/kbs/notes/").json()
    assert counts["failed_jobs"] == 0 and counts["pending_messages"] == 0 and counts["pending_jobs"] == 0


def test_a_later_success_of_the_same_input_makes_earlier_failures_history(kb):
    """A consolidation that failed and then ran well on its schedule is not counted as failing any more."""
    failed = JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE)
    failed.fail("LLMError: rate limit (429)", retryable=False)
    assert kb_list_with_counts().get(pk=kb.pk).failed_jobs == 1
    JobRun.objects.create(kb=kb, kind=JobRun.Kind.CONSOLIDATE).finish(status=JobRun.Status.SUCCEEDED)
    failed.refresh_from_db()
    assert failed.status == JobRun.Status.RETRIED and kb_list_with_counts().get(pk=kb.pk).failed_jobs == 0


def test_documents_and_inbox_files_left_without_a_job_are_handed_back(kb):
    """A document left waiting with no job (its run stopped without saying so) is queued again; a file claimed
    from the inbox that no job works on goes back to the inbox."""
    document, job = knowledge_services.document_upload(kb=kb, name="notes.txt", data=b"Ana keeps goats.")
    JobRun.objects.filter(pk=job.pk).update(status=JobRun.Status.SUCCEEDED)  # as a run that lied would leave it
    Document.objects.filter(pk=document.pk).update(status=Document.Status.PROCESSING)
    Document.objects.filter(pk=document.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    claimed = kb.inbox_dir / ".processing" / "orphan.txt"
    claimed.parent.mkdir(parents=True)
    claimed.write_text("Ana keeps goats.")
    old = timezone.now().timestamp() - 300
    os.utime(claimed, (old, old))
    done = jobs.jobs_heal()
    assert done["documents"] == 1 and done["inbox_files"] == 1
    assert (kb.inbox_dir / "orphan.txt").exists() and not claimed.exists()
    run_queued_tasks()
    document.refresh_from_db()
    assert document.status == Document.Status.DONE
