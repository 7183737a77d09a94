"""End to end: the real `manage.py qcluster` process does the background work."""

from __future__ import annotations

import os
import re
import signal
import time

import psutil
import pytest
from django.utils import timezone
from django_q.models import Task

from kbsite.jobs import job_retry
from kbsite.models import JobRun
from knowledge.models import Document
from memories import ingest
from memories.models import Insight, Memory, Session
from memories.schedules import ensure_schedules
from tests.conftest import wait_for

pytestmark = pytest.mark.e2e


def test_workers_ingest_and_consolidate_on_their_own(api, kb, qcluster):
    """Turns posted through the API and a file dropped in the inbox become memories, and the KB's schedule
    consolidates them into an insight, with no help from the test."""
    kb.consolidate_interval_minutes = 1
    kb.save()
    ensure_schedules()
    response = api.post(
        "/api/v1/kbs/notes/messages/",
        json={
            "session_id": "e2e",
            "messages": [
                {"external_id": "t1", "speaker": "Nora", "content": "I started learning the cello in January."},
                {"external_id": "t2", "speaker": "Nora", "content": "My sister Ines lives in Lisbon."},
            ],
        },
    )
    assert response.status_code == 202
    inbox_file = kb.inbox_dir / "garden.txt"
    inbox_file.write_text("Nora grows tomatoes and basil on her balcony every summer.")
    past = time.time() - 60
    os.utime(inbox_file, (past, past))

    wait_for(lambda: Memory.objects.filter(source="chat").count() == 2, 90, "memories from posted turns")
    wait_for(lambda: Memory.objects.filter(source="inbox:garden.txt").exists(), 90, "memories from the inbox file")
    wait_for(lambda: (kb.processed_dir / "garden.txt").exists(), 30, "the file to move to processed/")
    wait_for(lambda: Insight.objects.filter(kb=kb).exists(), 180, "a scheduled consolidation")
    run = JobRun.objects.get(kind="consolidate", status="succeeded")
    assert run.target == "scheduled" and run.mode == "heuristic"
    assert set(JobRun.objects.exclude(kind="consolidate").values_list("status", flat=True)) == {"succeeded"}


def _log(cluster) -> str:
    cluster.log.seek(0)
    return cluster.log.read()


def _running_extraction(timeout: float) -> JobRun:
    wait_for(
        lambda: JobRun.objects.filter(kind="ingest_messages", status="running").exclude(worker="").exists(),
        timeout,
        "an extraction to run",
    )
    return JobRun.objects.get(kind="ingest_messages", status="running")


def _post_two_turns(api) -> None:
    turns = [
        {"external_id": "t1", "speaker": "Nora", "content": "I started learning the cello in January."},
        {"external_id": "t2", "speaker": "Nora", "content": "My sister Ines lives in Lisbon."},
    ]
    assert api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s", "messages": turns}).status_code == 202


FACTS = {"add": [{"text": "Nora is learning the cello.", "source_turns": ["@1"]}], "supersede": [], "edges": []}


@pytest.mark.parametrize("qcluster_env", [{"JOB_RETRY_SECONDS": "1", "LLM_TIMEOUT_SECONDS": "60"}])
def test_a_worker_killed_mid_job_is_replaced_and_its_turns_extracted_within_a_minute(api, kb, fake_llm, qcluster):
    """kill -9 of the worker running an extraction (its LLM call hanging): the cluster starts a new worker, whose
    sweep fails the lost run with the reason, hands back its claims and queues the turns again; they are
    extracted once, well inside a minute, with no operator."""
    fake_llm.script.append(("sleep", 20))  # the call the killed worker is waiting on
    fake_llm.reply_json(FACTS)
    _post_two_turns(api)
    run = _running_extraction(60)
    wait_for(lambda: fake_llm.calls == 1, 30, "the worker to wait on the LLM")
    killed_at = time.monotonic()
    os.kill(int(run.worker.rpartition(":")[2]), signal.SIGKILL)
    wait_for(lambda: Memory.objects.exists(), 60, "the turns to be extracted by a retry")
    print(f"recovery after kill -9 of a worker: {time.monotonic() - killed_at:.1f}s")
    run.refresh_from_db()
    assert run.status == "retried" and "worker process stopped" in run.error
    assert list(Memory.objects.values_list("text", flat=True)) == ["Nora is learning the cello."]
    assert not Session.objects.filter(claimed_by__isnull=False).exists()
    assert JobRun.objects.filter(kind="ingest_messages", status="succeeded").count() == 1


@pytest.mark.parametrize(
    "qcluster_env", [{"JOB_TIMEOUT_SECONDS": "10", "JOB_RETRY_SECONDS": "1", "LLM_TIMEOUT_SECONDS": "60"}]
)
def test_a_job_past_its_time_limit_fails_with_the_reason_and_is_retried(api, kb, fake_llm, qcluster):
    """An extraction whose LLM call outlasts the job time limit is stopped by django-q: its run fails with that
    reason (not left running), its claims are released, and the retry extracts the turns."""
    fake_llm.script.append(("sleep", 30))
    fake_llm.reply_json(FACTS)
    _post_two_turns(api)
    run = _running_extraction(60)
    wait_for(lambda: Memory.objects.exists(), 90, "the retry to extract the turns")
    run.refresh_from_db()
    assert run.status == "retried" and "job time limit (10 s" in run.error
    assert list(Memory.objects.values_list("text", flat=True)) == ["Nora is learning the cello."]
    assert not Session.objects.filter(claimed_by__isnull=False).exists()


# A job stopped at its time limit waits to be retried by hand, so that the test sees where it left its input.
STOPPED_AND_LEFT = {
    "JOB_TIMEOUT_SECONDS": "10",
    "JOB_RETRY_SECONDS": "3600",
    "JOB_RETRY_MAX_SECONDS": "3600",
    "LLM_TIMEOUT_SECONDS": "60",
}


def _failed(job: JobRun, timeout: float) -> JobRun:
    wait_for(lambda: JobRun.objects.get(pk=job.pk).status == "failed", timeout, f"the {job.kind} job to fail")
    job.refresh_from_db()
    return job


@pytest.mark.parametrize("qcluster_env", [{**STOPPED_AND_LEFT, "EMBEDDING_BACKEND": "openai"}])
def test_a_document_job_past_its_time_limit_fails_with_the_reason_and_the_document_shows_it(
    api, kb, fake_llm, qcluster
):
    """A document whose embedding endpoint stalls past the job time limit is stopped by django-q (its SystemExit, in
    the worker): the run ends failed with the reason, not running forever, and the document says failed with it,
    not processing forever; re-indexing it works."""
    fake_llm.embeddings_after(30)  # the workers embed through the fake server (EMBEDDING_BACKEND=openai)
    response = api.post("/api/v1/kbs/notes/documents/", files={"file": ("tea.txt", b"Alice likes green tea.")})
    assert response.status_code == 202, response.text
    job = _failed(JobRun.objects.get(kind="document"), 90)
    assert "job time limit (10 s" in job.error
    document = Document.objects.get()
    assert document.status == "failed" and "job time limit" in document.error
    retried = job_retry(job=job)
    wait_for(lambda: Document.objects.get().status == "done", 60, "the document to be indexed again")
    assert JobRun.objects.get(pk=retried.pk).status == "succeeded"


@pytest.mark.parametrize("qcluster_env", [STOPPED_AND_LEFT])
def test_an_inbox_job_past_its_time_limit_parks_its_file_with_the_reason(kb, fake_llm, qcluster):
    """An inbox file whose extraction (its LLM call) outlasts the job time limit: django-q stops the job; the
    claimed file is not left in .processing but parked in failed/ with the reason, from where a retry takes it."""
    fake_llm.reply_after(30)
    fake_llm.reply_json({"add": [{"text": "Alice keeps three beehives in Porto."}], "supersede": [], "edges": []})
    inbox_file = kb.inbox_dir / "long.txt"
    inbox_file.write_text("Alice keeps three beehives in Porto.")
    os.utime(inbox_file, (time.time() - 60, time.time() - 60))
    ingest.inbox_scan()  # or the cluster's scheduled scan, whichever claims it first
    wait_for(lambda: JobRun.objects.filter(kind="ingest_file").exists(), 60, "the file to be claimed")
    job = _failed(JobRun.objects.get(kind="ingest_file"), 90)
    assert "job time limit (10 s" in job.error
    assert not list((kb.inbox_dir / ".processing").iterdir())
    assert "job time limit" in (kb.failed_dir / "long.txt.error.txt").read_text()
    job_retry(job=job)
    wait_for(lambda: (kb.processed_dir / "long.txt").exists(), 60, "the retried file to be processed")
    assert Memory.objects.get().source == "inbox:long.txt"


@pytest.mark.parametrize("qcluster_env", [{"JOB_RETRY_SECONDS": "1", "LLM_TIMEOUT_SECONDS": "60"}])
def test_after_kill_9_of_the_whole_cluster_a_restart_takes_the_work_up_within_a_minute(
    api, kb, fake_llm, start_qcluster
):
    """kill -9 of every worker process (as in a crash of the machine's product), then a start: the new cluster's
    first worker fails the run the old one left running and queues its turns again, which are extracted once."""
    fake_llm.script.append(("sleep", 30))
    fake_llm.reply_json(FACTS)
    first = start_qcluster()
    _post_two_turns(api)
    run = _running_extraction(60)
    wait_for(lambda: fake_llm.calls == 1, 30, "the worker to wait on the LLM")
    first.kill()
    restarted_at = time.monotonic()
    start_qcluster()
    wait_for(lambda: Memory.objects.exists(), 60, "the restarted cluster to extract the turns")
    print(f"recovery after kill -9 of the whole cluster and a restart: {time.monotonic() - restarted_at:.1f}s")
    run.refresh_from_db()
    assert run.status == "retried" and "worker process stopped" in run.error
    assert list(Memory.objects.values_list("text", flat=True)) == ["Nora is learning the cello."]
    assert not Session.objects.filter(claimed_by__isnull=False).exists()


def _worker_pids(cluster) -> list[int]:
    """The pids of the cluster's job workers, from django-q's "ready for work at <pid>" lines in its log."""
    return [int(pid) for pid in re.findall(r"ready for work at (\d+)", _log(cluster))]


def test_every_idle_worker_killed_leaves_a_cluster_that_extracts_turns_posted_afterwards(api, kb, qcluster):
    """kill -9 of every idle job worker (the OOM killer picks one, and an idle worker waits inside the task queue's
    read): the cluster starts new workers, and turns posted afterwards are extracted within a minute. In django-q's
    own queue a worker dies holding the queue's read lock, and the new workers wait on it for ever."""
    wait_for(lambda: _log(qcluster).count("kbsite worker warm") == 2, 120, "both workers to be warm")
    time.sleep(1)  # both idle inside the task queue's get()
    for pid in _worker_pids(qcluster):
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: len(_worker_pids(qcluster)) == 4, 60, "the cluster to start two new workers")
    _post_two_turns(api)
    wait_for(lambda: Memory.objects.filter(source="chat").count() == 2, 60, "the turns to be extracted")


def _helpers(cluster) -> list[int]:
    """The pids of the cluster's pusher and monitor: the sentinel's children that are not job workers."""
    workers = set(_worker_pids(cluster))
    (sentinel,) = psutil.Process(cluster.process.pid).children()
    return [child.pid for child in sentinel.children() if child.pid not in workers]


def test_the_pusher_and_the_monitor_killed_leave_a_cluster_that_runs_and_records_tasks(api, kb, qcluster):
    """kill -9 of the pusher (which writes the task queue) and the monitor (which reads the result queue): the cluster
    starts both again, turns posted afterwards are extracted, and their tasks are recorded as done."""
    wait_for(lambda: _log(qcluster).count("kbsite worker warm") == 2, 120, "both workers to be warm")
    killed = _helpers(qcluster)
    assert len(killed) == 2
    killed_at = timezone.now()
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: _log(qcluster).count("reincarnated") == 2, 30, "a new pusher and monitor")
    _post_two_turns(api)
    wait_for(lambda: Memory.objects.filter(source="chat").count() == 2, 60, "the turns to be extracted")
    wait_for(lambda: Task.objects.filter(started__gt=killed_at).exists(), 30, "a task run since to be recorded")
