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

A process of the cluster killed with SIGKILL (an idle worker, a busy one, the pusher, the monitor) leaves the cluster
working: its queues are kbsite.queues', whose locks the sentinel takes back from the dead, and the guard asks whether
a worker lives before it takes the worker's timer lock (which the dead worker may hold).
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import signal
import time
from multiprocessing import RawValue

from django.conf import settings
from django.db import DatabaseError
from django.dispatch import receiver
from django.utils import timezone
from django_q import cluster
from django_q.conf import Conf
from django_q.signals import post_spawn
from django_q.status import Stat

from kbsite.queues import HeldTasks, Queue

logger = logging.getLogger(__name__)

MONITOR_SECONDS = 2  # after the workers, for the monitor to save what they finished


class Sentinel(cluster.Sentinel):
    """django-q's sentinel of a cluster's processes, deaf to SIGTERM, stopping within WORKER_STOP_SECONDS, and
    surviving any of its processes killed."""

    def __init__(self, stop_event, start_event, cluster_id, broker=None, timeout=None, start: bool = True) -> None:
        super().__init__(stop_event, start_event, cluster_id, broker, timeout, start=False)
        self.held = HeldTasks(multiprocessing.get_context("fork"))
        self.task_queue = Queue(maxsize=Conf.QUEUE_LIMIT or 0, held=self.held, holds=True)
        self.result_queue = Queue(held=self.held)
        if start:
            self.start()

    def guard(self) -> None:
        """django-q's guard loop, asking whether a worker lives before taking its timer lock: a worker killed while
        it held that lock would have stopped the guard for ever."""
        logger.info("%s guarding cluster %s", cluster.current_process().name, cluster.humanize(self.cluster_id.hex))
        self.start_event.set()
        Stat(self).save()
        counter, cycle = 0.0, Conf.GUARD_CYCLE
        while True:
            for process in list(self.pool):
                if not process.is_alive():
                    self.reincarnate(process)
                    continue
                with process.timer.get_lock():
                    if process.timer.value == 0:  # past its time limit: django-q terminates it
                        self.reincarnate(process)
                    elif process.timer.value > 0:
                        process.timer.value -= cycle
            for process in (self.monitor, self.pusher):
                if not process.is_alive():
                    self.reincarnate(process)
            counter += cycle
            if counter >= 30 and Conf.SCHEDULER:
                counter = 0
                cluster.scheduler(broker=self.broker)
            Stat(self).save()
            if self.stop_event.wait(cycle):
                break
        self.stop()

    def reincarnate(self, process) -> None:
        """A new process for one that died or overran, once what a dead one held is taken back."""
        if not process.is_alive():
            self.bury(process)
        super().reincarnate(process)

    def bury(self, process) -> None:
        """Take back what the dead ``process`` held: the queues' locks, and the task it had taken but not started
        (a task it was running is the jobs' healing's: its run fails with the reason and is retried)."""
        shared = (("task queue", self.task_queue), ("result queue", self.result_queue), ("held tasks'", self.held))
        held = [f"{name} {lock}" for name, place in shared for lock in place.release_held_by(process.pid)]
        if held:
            logger.warning("released the %s lock(s) held by dead process %s", ", ".join(held), process.pid)
        ack_id = self.held.pop(process.pid)
        timer = getattr(process, "timer", None)
        if timer is not None:  # django-q reads it; the dead worker may have held its lock
            process.timer = RawValue("f", timer.get_obj().value)
            if ack_id is not None and process.timer.value == -1:  # idle: taken, not started
                self._hand_back([{"ack_id": ack_id}])

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
