"""The job cluster's inner queues (sentinel → workers, workers → monitor), which survive a process killed with SIGKILL.

django-q's queue is multiprocessing's: a reader holds the queue's read lock for as long as it waits for a message,
and a writer holds the write lock while it writes one. An idle worker spends its life inside that wait, so a worker
killed while idle (the OOM killer's choice as often as a busy one) died holding the read lock: every worker after it
waited on the lock for ever and the cluster ran nothing again, while its pusher kept taking tasks from the broker.

Here a reader waits for a message without the lock and takes the lock only to read one that is there, and each lock
records the process that holds it, so that the sentinel, seeing a process of the cluster dead, releases what it
held (``Queue.release_held_by``). What is left is a read or write of a few hundred bytes being cut off halfway.

The queues also record which task each worker holds (``HeldTasks``): taken from the task queue, its result not yet
put on the result queue. A worker killed between the two, before it started the task, took the task with it: the
broker would hand it out again only after Q_CLUSTER's ``retry`` (minutes); the sentinel hands it back at once.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import time
from multiprocessing import queues
from multiprocessing.reduction import ForkingPickler


class OwnedLock:
    """A process-shared lock that knows which process holds it (multiprocessing's does not), so that another process
    can release it once its holder is dead."""

    def __init__(self, ctx) -> None:
        self._lock = ctx.Lock()
        self._holder = ctx.RawValue("i", 0)

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        if not self._lock.acquire(block, timeout):
            return False
        self._holder.value = os.getpid()
        return True

    def release(self) -> None:
        self._holder.value = 0
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def release_held_by(self, pid: int) -> bool:
        """Release the lock if the process ``pid`` (dead: the caller knows) holds it."""
        if not pid or self._holder.value != pid:
            return False
        self.release()
        return True


class HeldTasks:
    """Which task (its broker ack id) each process holds: taken from the task queue, its result not yet put."""

    SLOTS = 256

    def __init__(self, ctx) -> None:
        self._table = ctx.RawArray("q", 2 * self.SLOTS)  # pid, ack id; pid 0 is a free slot
        self._lock = OwnedLock(ctx)

    def hold(self, pid: int, ack_id: int) -> None:
        with self._lock:
            free = None
            for slot in range(self.SLOTS):
                if self._table[2 * slot] == pid:
                    free = slot
                    break
                if free is None and self._table[2 * slot] == 0:
                    free = slot
            if free is not None:  # more processes than slots: the broker's retry hands it back in time
                self._table[2 * free + 1] = ack_id
                self._table[2 * free] = pid

    def pop(self, pid: int) -> int | None:
        """The ack id of the task ``pid`` holds, no longer held."""
        with self._lock:
            for slot in range(self.SLOTS):
                if self._table[2 * slot] == pid:
                    self._table[2 * slot] = 0
                    return self._table[2 * slot + 1]
        return None

    def release_held_by(self, pid: int) -> list[str]:
        return ["table"] if self._lock.release_held_by(pid) else []


def _ack_id(message) -> int | None:
    ack_id = message.get("ack_id") if isinstance(message, dict) else None
    return ack_id if isinstance(ack_id, int) else None


class Queue(queues.Queue):
    """multiprocessing's queue, whose readers wait without holding the read lock, and whose locks can be taken back
    from a dead process. ``qsize`` and ``empty`` need no counter: Linux tells a semaphore's value."""

    def __init__(self, maxsize: int = 0, *, held: HeldTasks | None = None, holds: bool = False) -> None:
        """``held``: where a reader of this queue records the task it takes (``holds``), or where a process putting
        a task's result on this queue says it holds it no more."""
        ctx = multiprocessing.get_context("fork")  # as django-q forks its cluster's processes
        super().__init__(maxsize, ctx=ctx)
        self._rlock = OwnedLock(ctx)
        self._wlock = OwnedLock(ctx)  # the feeder thread, started at the first put, takes this one
        self._held, self._holds = held, holds

    def __getstate__(self):
        return (*super().__getstate__(), self._held, self._holds)

    def __setstate__(self, state) -> None:
        super().__setstate__(state[:-2])
        self._held, self._holds = state[-2:]

    def put(self, obj, block: bool = True, timeout: float | None = None) -> None:
        if self._held is not None and not self._holds and _ack_id(obj) is not None:
            self._held.pop(os.getpid())  # its result: the task is done with
        super().put(obj, block, timeout)

    def get(self, block: bool = True, timeout: float | None = None):
        if self._closed:
            raise ValueError(f"Queue {self!r} is closed")
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = 0.0 if not block else None if deadline is None else max(0.0, deadline - time.monotonic())
            # Waiting here holds nothing: a reader killed while it waits leaves the queue as it was.
            received = None
            if self._poll(wait) and self._rlock.acquire(True, wait):
                try:
                    if self._poll():  # another reader may have taken the message meanwhile
                        received = self._recv_bytes()
                        self._sem.release()
                finally:
                    self._rlock.release()
            if received is not None:
                message = ForkingPickler.loads(received)
                if self._holds and (ack_id := _ack_id(message)) is not None:
                    self._held.hold(os.getpid(), ack_id)
                return message
            if not block or (deadline is not None and time.monotonic() >= deadline):
                raise queue.Empty

    def release_held_by(self, pid: int) -> list[str]:
        """Release the locks the dead process ``pid`` held; the names of those it held."""
        return [name for name, lock in (("read", self._rlock), ("write", self._wlock)) if lock.release_held_by(pid)]
