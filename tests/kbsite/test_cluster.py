"""The job workers' cluster stops within its grace after a SIGTERM, and gives back the tasks it held."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import time
import uuid

import pytest
from django.utils import timezone
from django_q.models import OrmQ, Task
from django_q.tasks import async_task

from kbsite.cluster import Sentinel
from tests.conftest import wait_for

FORK = multiprocessing.get_context("fork")

GRACE = 3


def _log(cluster) -> str:
    cluster.log.seek(0)
    return cluster.log.read()


@pytest.mark.e2e
@pytest.mark.parametrize("qcluster_env", [{"WORKER_STOP_SECONDS": str(GRACE)}])
@pytest.mark.parametrize("to_group", [False, True], ids=["to-the-cluster", "to-its-process-group"])
def test_a_cluster_busy_with_long_tasks_stops_within_its_grace_and_gives_them_back(qcluster, to_group):
    """Both workers in a long task and two more tasks taken from the queue: after a SIGTERM (to the cluster, as
    manage.py serve sends it, or to its whole process group, as a supervisor does) the cluster is gone within its
    grace, not after running the tasks it held (or never); the tasks it had not started are queued again at once,
    the interrupted ones stay in the queue, and none is recorded as done."""
    wait_for(lambda: _log(qcluster).count("kbsite worker warm") == 2, 120, "both workers to be warm")
    for _ in range(4):
        async_task("time.sleep", 120)
    wait_for(lambda: _log(qcluster).count("'time.sleep'") == 2, 30, "both workers to start a task")
    wait_for(lambda: not OrmQ.objects.filter(lock__lte=timezone.now()).exists(), 10, "all four tasks to be taken")
    signalled = time.monotonic()
    if to_group:
        os.killpg(qcluster.process.pid, signal.SIGTERM)
    else:
        qcluster.process.send_signal(signal.SIGTERM)
    try:
        qcluster.process.wait(timeout=GRACE + 10)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the cluster had not stopped {GRACE + 10}s after SIGTERM")
    print(f"cluster stopped {time.monotonic() - signalled:.1f}s after SIGTERM")
    # The sleeps only: a worker's warm-up queues work of its own (the knowledge sync), which it may not have run yet.
    sleeps = [q for q in OrmQ.objects.all() if q.func() == "time.sleep"]
    assert len(sleeps) == 4
    assert sum(q.lock <= timezone.now() for q in sleeps) == 2  # the two never started: queued again
    assert not Task.objects.filter(func="time.sleep").exists()


def _dead_worker(timer: float):
    """A cluster worker process that has died, its timer as django-q left it (-1 idle, > 0 running a task)."""
    process = FORK.Process(target=int, daemon=True)
    process.start()
    process.join()
    process.timer = multiprocessing.Value("f", timer)
    return process


@pytest.mark.django_db(transaction=True)
def test_a_task_taken_by_a_worker_killed_before_it_started_it_is_queued_again_at_once():
    """A worker killed after it took a task from the cluster's queue and before it began it (idle, as django-q
    counts it): the sentinel hands the task back to the broker now, not after Q_CLUSTER's retry; a task a worker
    was running stays with the jobs' healing, and a finished one is not handed back."""
    sentinel = Sentinel(multiprocessing.Event(), multiprocessing.Event(), uuid.uuid4(), start=False)
    for _ in range(3):
        async_task("time.sleep", 0)
    taken = [task for _ in range(3) for task in sentinel.broker.dequeue()]
    assert len(taken) == 3 and not OrmQ.objects.filter(lock__lte=timezone.now()).exists()
    idle, busy, done = _dead_worker(-1), _dead_worker(30), _dead_worker(-1)
    for process, (ack_id, _) in zip((idle, busy, done), taken, strict=True):
        sentinel.held.hold(process.pid, ack_id)
    sentinel.held.pop(done.pid)  # it put its result
    for process in (idle, busy, done):
        sentinel.bury(process)
    assert list(OrmQ.objects.filter(lock__lte=timezone.now()).values_list("pk", flat=True)) == [taken[0][0]]
