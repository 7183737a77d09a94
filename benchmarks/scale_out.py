"""Scale-out for real: the product on an external PostgreSQL with two separate worker clusters, as two machines.

Starts a fresh Debian PostgreSQL server with pgvector (installed by ``benchmarks/external_postgres.sh``; ``make
scale-out`` runs both), the web server and two ``manage.py qcluster`` processes that share nothing but the database,
as two machines would. A bot posts a few thousand turns over HTTP from several threads; the run waits until every
session's cursor has passed its last turn and prints what it proves:

- every turn was stored once and extracted (each session's cursor is past its last turn);
- no turn was extracted twice: the turns the extraction runs read add up to the turns posted, and no turn is the
  source of memories written by two runs;
- both clusters did work, and no job failed or was left queued or running.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import requests

from benchmarks.harness import ROOT, free_port

SESSIONS = int(os.environ.get("SCALE_OUT_SESSIONS", "100"))
TURNS_PER_SESSION = int(os.environ.get("SCALE_OUT_TURNS", "30"))
BATCH = 10
WAIT_SECONDS = 1200
WORK = ROOT / "var" / "scale-out"
TOPICS = ["hiking", "chess", "pottery", "salsa", "sailing", "baking", "cycling", "painting", "judo", "rowing"]
CITIES = ["Lyon", "Porto", "Gdansk", "Bergen", "Ghent", "Turin", "Leeds", "Graz", "Malmo", "Tartu"]


def run() -> None:
    server = Postgres(WORK / "pgdata")
    server.start()
    web, clusters = None, []
    try:
        env = product_env(server.url)
        manage(env, "migrate", "--verbosity", "0")
        # Its posts come from several threads at once, faster than a new bot's 600 a minute.
        unlimited = {**env, "BOT_REQUESTS_PER_MINUTE": "1000000"}
        key = manage(unlimited, "create_bot", "scale", "--kb", "chat", "--quiet").strip().splitlines()[-1]
        web = Process.web(env)
        clusters = [Process.cluster(env, n) for n in (1, 2)]
        web.wait_http()
        started = time.monotonic()
        posted = post_turns(web.url, key)
        post_seconds = time.monotonic() - started
        print(f"posted {posted} turns in {SESSIONS} sessions over HTTP in {post_seconds:.1f} s", flush=True)
        done_seconds = wait_extracted(server.url, started)
        report(server.url, posted, done_seconds, clusters)
    finally:
        for process in [web, *clusters]:
            if process:
                process.stop()
        server.stop()


def product_env(database_url: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMBEDDED_")}
    env.update(
        {
            "DATABASE_URL": database_url,
            "KBSITE_DATA_DIR": str(WORK / "data"),
            "LLM_BASE_URL": "",
            "LLM_MODEL": "",
            "WORKERS": "2",
            "DJANGO_SETTINGS_MODULE": "kbsite.settings",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


class Postgres:
    """A fresh cluster of Debian's PostgreSQL server, run as the ``postgres`` user when this process is root."""

    def __init__(self, data: Path):
        installed = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parent.parent.name))
        if not installed or not list(Path("/usr/share/postgresql").glob("*/extension/vector.control")):
            raise SystemExit("Debian's PostgreSQL with pgvector is not installed: run benchmarks/external_postgres.sh")
        self.bin, self.data, self.port = installed[-1].parent, data, free_port()
        self.url = f"postgres://kbsite@127.0.0.1:{self.port}/kbsite"

    def _run(self, *args: str) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*as_postgres, *args], check=True, capture_output=True)

    def start(self) -> None:
        shutil.rmtree(self.data.parent, ignore_errors=True)
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.data, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "kbsite", "--auth=trust", "-E", "UTF8")
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200"
        log = str(self.data / "server.log")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
        with psycopg.connect(self.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE kbsite")
            version = conn.execute("SELECT version()").fetchone()[0]
        print(f"external server: {version.split(',')[0]} on port {self.port}", flush=True)

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")


class Process:
    """A child process of the product in a process group of its own, with its log under var/scale-out/."""

    def __init__(self, name: str, args: list[str], env: dict, url: str = ""):
        self.name, self.url = name, url
        self.log = open(WORK / f"{name}.log", "w")  # noqa: SIM115 - closed in stop
        self.popen = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    @classmethod
    def web(cls, env: dict) -> Process:
        """The web tier as ``manage.py serve`` runs it (docs/scaling.md): the ASGI application
        under the project's gunicorn settings, two processes."""
        port = free_port()
        args = [sys.executable, "-m", "gunicorn", "kbsite.asgi:application", "--bind", f"127.0.0.1:{port}"]
        args += ["--workers", "2", "--config", "python:kbsite.gunicorn_conf"]
        return cls("web", args, env, url=f"http://127.0.0.1:{port}")

    @classmethod
    def cluster(cls, env: dict, number: int) -> Process:
        return cls(f"cluster-{number}", [sys.executable, "manage.py", "qcluster"], env)

    def wait_http(self) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                break
            try:
                if requests.get(f"{self.url}/api/health/", timeout=2).ok:
                    return
            except (requests.ConnectionError, requests.Timeout):
                pass
            time.sleep(0.3)
        raise SystemExit(f"the web server did not start; see {self.log.name}")

    def owns(self, pid: int) -> bool:
        """Whether ``pid`` is a process of this one's group (a cluster's workers are)."""
        try:
            return os.getpgid(pid) == self.popen.pid
        except ProcessLookupError:
            return False

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL after 60 s; says how long its stop took (a cluster's bound is
        WORKER_STOP_SECONDS)."""
        if self.popen.poll() is None:
            asked = time.monotonic()
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=60)
                print(f"  {self.name} stopped {time.monotonic() - asked:.1f} s after SIGTERM", flush=True)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                print(f"  {self.name} NOT stopped 60 s after SIGTERM: killed", flush=True)
        self.log.close()


def turn_text(session: int, turn: int) -> str:
    topic, city = TOPICS[(session + turn) % len(TOPICS)], CITIES[turn % len(CITIES)]
    return f"I went {topic} with my friend Member{session}x{turn} in {city} last weekend, {turn} times this year."


def post_turns(url: str, key: str) -> int:
    def post(session: int) -> int:
        sent = 0
        with requests.Session() as http:
            http.headers["Authorization"] = f"Bearer {key}"
            for start in range(0, TURNS_PER_SESSION, BATCH):
                turns = range(start, min(start + BATCH, TURNS_PER_SESSION))
                messages = [
                    {"external_id": f"s{session}-t{t}", "speaker": f"user{session}", "content": turn_text(session, t)}
                    for t in turns
                ]
                answer = http.post(
                    f"{url}/api/v1/kbs/chat/messages/", json={"session_id": f"s{session}", "messages": messages}
                )
                answer.raise_for_status()
                sent += answer.json()["accepted"]
        return sent

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return sum(pool.map(post, range(SESSIONS)))


def wait_extracted(database_url: str, started: float) -> float:
    """Seconds from the first post until every session's cursor is past its last turn and no job is waiting."""
    deadline = time.monotonic() + WAIT_SECONDS
    with psycopg.connect(database_url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            behind, busy = conn.execute(
                """SELECT (SELECT count(*) FROM memories_session s WHERE s.extracted_through <
                               (SELECT max(id) FROM memories_message m WHERE m.session_id = s.id)),
                          (SELECT count(*) FROM memories_jobrun
                           WHERE kind = 'ingest_messages' AND status IN ('queued', 'running'))"""
            ).fetchone()
            if not behind and not busy:
                return time.monotonic() - started
            time.sleep(1)
    raise SystemExit(f"turns were still waiting after {WAIT_SECONDS} s")


def report(database_url: str, posted: int, seconds: float, clusters: list[Process]) -> None:
    with psycopg.connect(database_url) as conn:
        stored, sessions = conn.execute("SELECT count(*), count(DISTINCT session_id) FROM memories_message").fetchone()
        runs = conn.execute(
            "SELECT worker, items_read, status FROM memories_jobrun WHERE kind = 'ingest_messages'"
        ).fetchall()
        twice = conn.execute(
            """SELECT count(*) FROM (SELECT l.message_id FROM memories_memory_source_messages l
               JOIN memories_memory m ON m.id = l.memory_id GROUP BY l.message_id
               HAVING count(DISTINCT m.job_run_id) > 1) t"""
        ).fetchone()[0]
        sourced = "SELECT count(DISTINCT message_id) FROM memories_memory_source_messages"
        with_memory = conn.execute(sourced).fetchone()[0]
        failed = conn.execute("SELECT count(*) FROM memories_jobrun WHERE status = 'failed'").fetchone()[0]
    read = sum(items for _, items, _ in runs)
    per_cluster = [0] * len(clusters)
    for worker, items, _ in runs:
        pid = int(worker.rpartition(":")[2] or 0)
        for n, cluster in enumerate(clusters):
            per_cluster[n] += items if pid and cluster.owns(pid) else 0
    print(f"stored {stored} of {posted} turns in {sessions} sessions; all extracted {seconds:.1f} s after the first")
    print(f"throughput: {stored / seconds:.0f} turns/s end to end, two clusters of 2 workers each")
    print(f"extraction runs: {len(runs)}; turns they read: {read} (posted {posted}); failed jobs: {failed}")
    print(f"turns read per cluster: {', '.join(str(n) for n in per_cluster)} (workers still alive at the end)")
    print(f"turns that are the source of memories: {with_memory}; of them written by two runs: {twice}")
    ok = stored == posted and read == posted and twice == 0 and failed == 0 and all(per_cluster)
    print("every turn processed exactly once" if ok else "FAILED: see the figures above", flush=True)
    if not ok:
        raise SystemExit(1)
