"""The job workers' cluster (``manage.py qcluster``): django-q2's, stopping within WORKER_STOP_SECONDS of a SIGTERM.

django-q2's sentinel stops without a bound: its workers first run every task its pusher had already taken from
the queue (up to WORKERS² of them, each up to JOB_TIMEOUT_SECONDS), then it waits for the monitor up to the job
time limit. And a SIGTERM to the cluster's whole process group (a supervisor stopping the group, kbsite.supervision's
watchdog) killed the sentinel while the cluster's main process, on the same signal, asked it to stop through an
event whose wake-up the dead sentinel never acknowledged: the main process waited for ever.

Here the sentinel, its pusher and its monitor ignore SIGTERM (the main process tells the sentinel to stop, on its
own SIGTERM or its group's), and the sentinel stops within WORKER_STOP_SECONDS:

- the tasks its pusher took that no worker started go back to the queue at once, for another cluster or the next
  start (not after Q_CLUSTER's ``retry`` seconds, when the lock the pusher took would have expired);
- a task running is given the rest of the grace; a worker still in one then is killed. Its task stays in the queue
  (redelivered after ``retry``; a job task finds its run settled and does nothing), and its job is failed and
  retried by the jobs' healing (kbsite.jobs: its worker process is gone). A worker dies of SIGTERM as in django-q
  (which terminates one stuck past its time limit), so one signalled with its group is cut off at once, the same;
- the monitor then saves and acknowledges what the workers finished, for MONITOR_SECONDS at most.
"""

from __future__ import annotations

import logging
import queue
import signal
import time

from django.conf import settings
from django.db import DatabaseError
from django.dispatch import receiver
from django.utils import timezone
from django_q import cluster
from django_q.signals import post_spawn
from django_q.status import Stat

logger = logging.getLogger(__name__)

MONITOR_SECONDS = 2  # after the workers, for the monitor to save what they finished


class Sentinel(cluster.Sentinel):
    """django-q's sentinel of a cluster's processes, deaf to SIGTERM, stopping within WORKER_STOP_SECONDS."""

    def start(self) -> None:
        # Before the pusher and the monitor are forked: they inherit it (workers restore it, see below).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        super().start()

    def stop(self) -> None:
        deadline = time.monotonic() + settings.WORKER_STOP_SECONDS
        Stat(self).save()
        self.event_out.set()  # the pusher takes nothing more from the queue
        taken = []
        while self.pusher.is_alive() and time.monotonic() < deadline:
            taken += self._unstarted()  # also makes room for a pusher waiting to put its last task
            self.pusher.join(0.1)
        taken += self._unstarted()
        self._hand_back(taken)
        # A worker killed below may have held a queue's write lock: nothing here waits on the queues' feeders.
        self.task_queue.cancel_join_thread()
        self.result_queue.cancel_join_thread()
        for _ in self.pool:
            self.task_queue.put("STOP")
        while any(p.is_alive() for p in self.pool) and time.monotonic() < deadline:
            time.sleep(0.1)
        busy = [p for p in self.pool if p.is_alive()]
        for process in busy:
            process.kill()
            process.join(1)
        if busy:
            logger.warning(
                "stopped %d job workers still running a task after %ss", len(busy), settings.WORKER_STOP_SECONDS
            )
        self.pool = []
        self.result_queue.put("STOP")
        self.monitor.join(MONITOR_SECONDS)
        for process in (self.pusher, self.monitor):
            if process.is_alive():
                process.kill()
                process.join(1)
        Stat(self).save()

    def _unstarted(self) -> list:
        """The tasks waiting in the cluster's own queue, taken out of it (none is there while a worker waits for one:
        that worker takes the next)."""
        tasks = []
        while True:
            try:
                tasks.append(self.task_queue.get(timeout=0.05))
            except queue.Empty:
                return tasks

    def _hand_back(self, tasks: list) -> None:
        """The broker's lock on ``tasks`` lifted: any cluster takes them now."""
        ack_ids = [task["ack_id"] for task in tasks if isinstance(task, dict) and "ack_id" in task]
        if not ack_ids:
            return
        try:
            self.broker.get_connection().filter(pk__in=ack_ids).update(lock=timezone.now())
        except DatabaseError:  # they come back by themselves once their lock expires
            logger.warning("could not queue again %d tasks at stop", len(ack_ids), exc_info=True)
            return
        logger.info("queued again %d tasks no worker had started", len(ack_ids))


@receiver(post_spawn)
def worker_dies_of_sigterm(sender, proc_name: str = "", **kwargs) -> None:
    """A job worker dies of SIGTERM again, which its sentinel ignores: django-q terminates a worker stuck past its
    time limit with it."""
    if proc_name != "MainProcess":
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
