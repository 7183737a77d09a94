"""`python -m benchmarks soak [--minutes 10] [--external]`: the product under load for a while, its workers killed at
intervals and its LLM failing for stretches; then what was lost, applied twice, answered 5xx, and how it grew.

Two bots, each with an always-on KB that records its chats, and each served by three clients
(:mod:`benchmarks.soak_load`): the bot itself for three end users (turns, re-sends, recall, the context block,
streams through the chat proxy, document uploads) and two end users' own apps (a key of one end user). The
product runs in LLM mode against :mod:`benchmarks.soak_llm`, which fails for ``FAIL_SECONDS`` of every
``FAIL_PERIOD`` (500, then 429, then answers later than the callers' time-outs); every ``KILL_EVERY`` seconds a
job worker is killed with SIGKILL, in turn one running a job and one idle where there is one of each (the OOM killer
picks either; django-q's sentinel starts another).

On the embedded PostgreSQL the product is started as the other benchmarks start it (:class:`harness.Product`:
the ASGI web tier, one worker cluster); with ``--external`` on a fresh Debian PostgreSQL with two worker clusters,
as ``make scale-out`` runs it (:mod:`benchmarks.scale_out`, after ``benchmarks/external_postgres.sh``).
When the time is up the clients stop, the weather clears and the run waits for the product to drain: every turn
past its session's cursor, no job queued, running or waiting for a retry, no document pending.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil
import requests

from benchmarks import harness, soak_report
from benchmarks.soak_llm import FAILURES, SoakLLM
from benchmarks.soak_load import Client, Tally

BOTS = ["soak-a", "soak-b"]
FAIL_PERIOD, FAIL_SECONDS, FAIL_FIRST = 90, 20, 30  # the LLM fails from FAIL_FIRST s on, FAIL_SECONDS of each period
KILL_EVERY, KILL_FIRST = 45, 20
DRAIN_TIMEOUT = 1200
PRODUCT_SETTINGS = {  # the LLM path, with time-outs and retries short enough for a soak of minutes
    "LLM_MODEL": "fake-model",
    "LLM_API_KEY": "soak",
    "LLM_TIMEOUT_SECONDS": "4",
    "LLM_MAX_RETRIES": "2",
    "PROXY_TIMEOUT_SECONDS": "5",
    "JOB_RETRY_SECONDS": "5",
    "JOB_RETRY_MAX_SECONDS": "60",
    "LOG_LEVEL": "WARNING",
}
TIMEOUT_SLEEP = 8.0  # longer than both time-outs above


@dataclass
class Stack:
    """A running product: its URL, the bots' keys, a way to query its database, its processes by role."""

    url: str
    keys: dict[str, str]
    query: Callable[[str], list[tuple]]
    roots: dict[str, list[int]]  # "web" / "workers" -> the pids whose process trees they are
    stop: Callable[[], None]
    label: str


def run() -> None:
    minutes, external = _options(sys.argv[1:])
    llm = SoakLLM(timeout_sleep=TIMEOUT_SLEEP)
    settings = {**PRODUCT_SETTINGS, "LLM_BASE_URL": llm.base_url}
    stack = external_stack(settings) if external else embedded_stack(settings)
    try:
        soak(stack, llm, minutes)
    finally:
        stack.stop()
        llm.close()


def _options(argv: list[str]) -> tuple[float, bool]:
    minutes = float(os.environ.get("SOAK_MINUTES", "10"))
    for n, arg in enumerate(argv):
        if arg == "--minutes" and n + 1 < len(argv):
            minutes = float(argv[n + 1])
        elif arg.startswith("--minutes="):
            minutes = float(arg.split("=", 1)[1])
    return minutes, "--external" in argv


def embedded_stack(settings: dict) -> Stack:
    """The product on the embedded PostgreSQL, in a database of its own (``kbsite_soak``), one worker cluster."""
    env = harness.configure("kbsite_soak")
    env.update(settings)
    harness.reset_database()
    keys = {bot: harness.make_bot(bot) for bot in BOTS}
    product = harness.Product(env)
    roots = {"web": [product.procs[0].pid], "workers": [product.procs[1].pid]}
    label = "embedded PostgreSQL, one worker cluster (2 workers)"
    return Stack(product.url, keys, _django_query, roots, product.stop, label)


def _django_query(sql: str) -> list[tuple]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def external_stack(settings: dict) -> Stack:
    """The product on a fresh Debian PostgreSQL with two worker clusters, as :mod:`benchmarks.scale_out` runs it."""
    import psycopg

    from benchmarks import scale_out

    server = scale_out.Postgres(scale_out.WORK / "pgdata")
    server.start()
    processes = []

    def stop() -> None:
        for process in processes:
            process.stop()
        server.stop()

    try:
        env = {**scale_out.product_env(server.url), **settings}
        scale_out.manage(env, "migrate", "--verbosity", "0")
        keys = {bot: scale_out.manage(env, "create_bot", bot, "--quiet").strip().splitlines()[-1] for bot in BOTS}
        processes.append(scale_out.Process.web(env))
        processes += [scale_out.Process.cluster(env, n) for n in (1, 2)]
        processes[0].wait_http()
        _wait_warm(processes[0].url)
    except BaseException:
        stop()
        raise

    def query(sql: str) -> list[tuple]:
        with psycopg.connect(server.url, autocommit=True) as conn:
            return conn.execute(sql).fetchall()

    roots = {"web": [processes[0].popen.pid], "workers": [p.popen.pid for p in processes[1:]]}
    label = "external PostgreSQL (Debian's), two worker clusters (2 workers each)"
    return Stack(processes[0].url, keys, query, roots, stop, label)


def _wait_warm(url: str) -> None:
    """Until the web processes say their embedding model is ready (as :class:`harness.Product` waits)."""
    deadline, in_a_row = time.monotonic() + 180, 0
    while time.monotonic() < deadline and in_a_row < 8:
        try:
            in_a_row = in_a_row + 1 if requests.get(f"{url}/api/health/", timeout=5).json().get("warm") else 0
        except (requests.RequestException, ValueError):
            in_a_row = 0
        time.sleep(0.2)


def soak(stack: Stack, llm: SoakLLM, minutes: float) -> None:
    print(f"soak: {minutes:g} min on {stack.label}; product at {stack.url}", flush=True)
    clients_keys = tenants(stack)
    warm_up(stack, clients_keys)
    rss_start = rss(stack)
    tally, stop = Tally(), threading.Event()
    clients = [Client(name, stack.url, key, bot, users, tally, stop) for name, key, bot, users in clients_keys]
    chaos = Chaos(stack, llm, stop)
    started = time.monotonic()
    for thread in [*clients, chaos]:
        thread.start()
    stop.wait(minutes * 60)
    stop.set()
    for thread in [*clients, chaos]:
        thread.join(timeout=90)
    llm.weather.failing = None
    load_seconds = time.monotonic() - started
    print(f"load stopped after {load_seconds:.0f} s; draining", flush=True)
    drain_seconds = drain(stack)
    time.sleep(2)  # the daily statistics and the pool settle before the end's RSS
    soak_report.report(
        stack=stack,
        tally=tally,
        chaos=chaos,
        llm=llm,
        load_seconds=load_seconds,
        drain_seconds=drain_seconds,
        rss_start=rss_start,
        rss_end=rss(stack),
    )


def tenants(stack: Stack) -> list[tuple[str, str, str, list[str]]]:
    """Each bot's KB (always on, recording its chats), and its clients: (name, key, bot, end users)."""
    clients = []
    for bot, key in stack.keys.items():
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {key}"
        answer = http.post(f"{stack.url}/api/v1/kbs/", json={"name": "notes", "always_on": True, "records_chat": True})
        assert answer.status_code == 201, answer.text
        clients.append((f"{bot}-bot", key, bot, [f"{bot}-u{n}" for n in range(1, 4)]))
        for n in (1, 2):
            user = f"{bot}-app{n}"
            answer = http.post(f"{stack.url}/api/v1/users/{user}/keys/", json={"name": "soak"})
            assert answer.status_code == 201, answer.text
            clients.append((f"{user}", answer.json()["key"], bot, [user]))
    return clients


def warm_up(stack: Stack, clients: list[tuple[str, str, str, list[str]]]) -> None:
    """One turn per bot, extracted, before the clock starts: the workers have loaded their models when the start's
    RSS is read."""
    for bot, key in stack.keys.items():
        body = {"session_id": "warm-up", "messages": [{"external_id": "w", "content": f"I run the {bot} bot daily."}]}
        answer = requests.post(
            f"{stack.url}/api/v1/kbs/notes/messages/", json=body, headers={"Authorization": f"Bearer {key}"}
        )
        assert answer.status_code == 202, answer.text
    drain(stack, timeout=300)
    time.sleep(5)


class Chaos(threading.Thread):
    """The weather of the LLM (failing FAIL_SECONDS of every FAIL_PERIOD, a failure of each kind in turn) and a
    worker killed every KILL_EVERY seconds, until ``stop``."""

    def __init__(self, stack: Stack, llm: SoakLLM, stop: threading.Event):
        super().__init__(name="chaos", daemon=True)
        self.stack, self.llm, self.stop = stack, llm, stop
        self.kills: list[str] = []  # "t=…s pid … (running a job | idle)"
        self.stretches: list[str] = []

    def run(self) -> None:
        started, next_kill = time.monotonic(), KILL_FIRST
        while not self.stop.wait(0.5):
            t = time.monotonic() - started
            self.weather(t)
            if t >= next_kill:
                self.kill_worker(t)
                next_kill += KILL_EVERY
        self.llm.weather.failing = None

    def weather(self, t: float) -> None:
        period, into = divmod(t - FAIL_FIRST, FAIL_PERIOD)
        failing = FAILURES[int(period) % len(FAILURES)] if t >= FAIL_FIRST and into < FAIL_SECONDS else None
        if failing != self.llm.weather.failing:
            self.llm.weather.failing = failing
            if failing:
                self.stretches.append(f"t={t:.0f}s {failing} for {FAIL_SECONDS} s")
            print(f"  t={t:.0f}s LLM {'fails: ' + failing if failing else 'answers again'}", flush=True)

    def kill_worker(self, t: float) -> None:
        busy, idle = worker_pids(self.stack)
        first, second = (busy, idle) if len(self.kills) % 2 == 0 else (idle, busy)  # busy and idle in turn
        pid = random.choice(first or second) if busy or idle else None
        if pid is None:
            print(f"  t={t:.0f}s no worker process to kill", flush=True)
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        what = "running a job" if pid in busy else "idle"
        self.kills.append(f"t={t:.0f}s pid {pid} ({what})")
        print(f"  t={t:.0f}s killed worker {pid} ({what})", flush=True)


def worker_pids(stack: Stack) -> tuple[list[int], list[int]]:
    """The job workers of the product's clusters: those running a job now, and the others that ran one. A worker
    is known by the pid its job runs record; the cluster's other processes (sentinel, pusher, monitor) never run
    one, so they are never picked."""
    ours = {p.pid for root in stack.roots["workers"] for p in _tree(root)}
    rows = stack.query("SELECT worker, status FROM memories_jobrun WHERE worker <> '' ORDER BY id DESC LIMIT 500")
    busy, idle = set(), set()
    for worker, status in rows:
        pid = int(worker.rpartition(":")[2] or 0)
        if pid in ours:
            (busy if status == "running" else idle).add(pid)
    return sorted(busy), sorted(idle - busy)


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def rss(stack: Stack) -> dict[str, dict[int, int]]:
    """Per role: the resident memory of each of its processes in bytes (pid -> bytes), from /proc/<pid>/status."""
    return {role: {p.pid: _vm_rss(p.pid) for root in roots for p in _tree(root)} for role, roots in stack.roots.items()}


def _vm_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            line = next(line for line in status if line.startswith("VmRSS:"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return 0
    return int(line.split()[1]) * 1024


DRAIN_SQL = """SELECT
  (SELECT count(*) FROM memories_message m JOIN memories_session s ON s.id = m.session_id
    WHERE m.id > s.extracted_through),
  (SELECT count(*) FROM memories_jobrun
    WHERE status IN ('queued', 'running') OR (status = 'failed' AND retry_at IS NOT NULL)),
  (SELECT count(*) FROM knowledge_document WHERE status IN ('pending', 'processing'))"""


def drain(stack: Stack, timeout: float = DRAIN_TIMEOUT) -> float | None:
    """Seconds until nothing waits (turns past their cursor, jobs queued, running or to be retried, documents
    pending); None if something still waits after ``timeout``."""
    started, last = time.monotonic(), None
    while time.monotonic() - started < timeout:
        waiting = stack.query(DRAIN_SQL)[0]
        if not any(waiting):
            return time.monotonic() - started
        if waiting != last:
            print(f"  waiting: {waiting[0]} turns, {waiting[1]} jobs, {waiting[2]} documents", flush=True)
            last = waiting
        time.sleep(1)
    return None
