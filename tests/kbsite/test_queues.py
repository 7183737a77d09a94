"""The job cluster's inner queues survive a reader or a lock holder killed with SIGKILL (kbsite.queues)."""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import time

import pytest

from kbsite.queues import HeldTasks, Queue

FORK = multiprocessing.get_context("fork")


def _killed(target, *args) -> int:
    """Run ``target`` in a forked child, let it reach its wait, kill -9 it; its pid."""
    child = FORK.Process(target=target, args=args, daemon=True)
    child.start()
    time.sleep(0.5)
    os.kill(child.pid, signal.SIGKILL)
    child.join()
    return child.pid


def _hold(lock) -> None:
    lock.acquire()
    time.sleep(60)


def test_a_reader_killed_while_it_waits_leaves_the_queue_readable():
    """A worker killed inside get() (an idle worker's whole life) held nothing: the next reader gets the next message.
    In multiprocessing's queue it died holding the read lock and the next get() waited for ever."""
    tasks = Queue(maxsize=4)
    _killed(tasks.get)
    tasks.put("task")
    assert tasks.get(timeout=5) == "task"
    assert tasks.qsize() == 0 and tasks.empty()


def test_a_lock_held_by_a_dead_process_is_released_by_name_and_the_queue_works_again():
    """A process killed while it held the read lock, and one killed while it held the write lock: release_held_by
    names each lock its pid held, and reading and writing work again; a live holder's locks are not touched."""
    tasks = Queue()
    tasks.put("first")
    reader = _killed(_hold, tasks._rlock)
    writer = _killed(_hold, tasks._wlock)
    with pytest.raises(queue.Empty):
        tasks.get(timeout=0.5)  # the message is there, the read lock is not
    assert tasks.release_held_by(os.getpid()) == []
    assert tasks.release_held_by(reader) == ["read"]
    assert tasks.release_held_by(writer) == ["write"]
    assert tasks.release_held_by(reader) == []
    tasks.put("second")
    assert [tasks.get(timeout=5), tasks.get(timeout=5)] == ["first", "second"]


def test_two_readers_share_the_messages_without_loss():
    """Readers waiting together each take whole messages: none is lost or read twice."""
    tasks, results = Queue(maxsize=4), Queue()

    def read() -> None:
        for message in iter(tasks.get, "STOP"):
            results.put(message)

    readers = [FORK.Process(target=read, daemon=True) for _ in range(2)]
    for reader in readers:
        reader.start()
    for number in range(200):
        tasks.put(number)
    for _ in readers:
        tasks.put("STOP")
    assert sorted(results.get(timeout=5) for _ in range(200)) == list(range(200))
    for reader in readers:
        reader.join(5)


def test_the_task_queue_records_the_task_a_reader_holds_until_it_puts_its_result():
    """A reader taking a task (a broker ack id) holds it until it puts the task's result on the result queue; pop
    tells the task of a process, once."""
    held = HeldTasks(FORK)
    tasks, results = Queue(maxsize=4, held=held, holds=True), Queue(held=held)
    tasks.put({"ack_id": 41, "func": "f"})
    tasks.put("STOP")
    task = tasks.get(timeout=5)
    assert tasks.get(timeout=5) == "STOP"
    assert held.pop(os.getpid()) == 41 and held.pop(os.getpid()) is None
    tasks.put({"ack_id": 42})
    results.put(tasks.get(timeout=5))
    assert held.pop(os.getpid()) is None
    assert task["func"] == "f" and results.get(timeout=5) == {"ack_id": 42}
