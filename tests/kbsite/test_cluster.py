"""The job workers' cluster stops within its grace after a SIGTERM, and gives back the tasks it held."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from django.utils import timezone
from django_q.models import OrmQ, Task
from django_q.tasks import async_task

from tests.conftest import wait_for

pytestmark = pytest.mark.e2e

GRACE = 3


def _log(cluster) -> str:
    cluster.log.seek(0)
    return cluster.log.read()


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
    assert OrmQ.objects.count() == 4
    assert OrmQ.objects.filter(lock__lte=timezone.now()).count() == 2  # the two never started: queued again
    assert not Task.objects.filter(func="time.sleep").exists()
