"""Scale-out for real: the product on an external PostgreSQL with two separate worker clusters, as two machines.

Starts a fresh Debian PostgreSQL server with pgvector (installed by ``benchmarks/external_postgres.sh``; ``make
scale-out`` runs both), a streaming replica of it (``pg_basebackup -R``), the web server reading from the replica
(``DATABASE_REPLICA_URLS``) and two ``manage.py qcluster`` processes that share nothing but the database, as two
machines would. A bot posts a few thousand turns to four KBs over HTTP from several threads while another recalls and
reads the context block; half-way through the posts the replica is killed. The run waits until every session's cursor
has passed its last turn and prints what it proves:

- the replica served reads (its own count of transactions) and killing it cost no read a 5xx;

- every turn was stored once and extracted (each session's cursor is past its last turn);
- no turn was extracted twice: the turns the extraction runs read add up to the turns posted, and no turn is the
  source of memories written by two runs;
- both clusters ran jobs, and no job failed or was left queued or running.

Then the replica is started again and, once it has caught up, recall is timed through the web tier that reads from
it and, in turn, through a second one with no replica configured: what a read on a replica costs.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import requests

from benchmarks.harness import ROOT, free_port

SESSIONS = int(os.environ.get("SCALE_OUT_SESSIONS", "100"))
TURNS_PER_SESSION = int(os.environ.get("SCALE_OUT_TURNS", "30"))
# The sessions are spread over this many KBs: a KB's turns wait for one extraction job at a time, so with one KB
# a run had a handful of jobs, and whichever cluster polled the queue first could take them all (one run in five).
KBS = 4
BATCH = 10
WAIT_SECONDS = 1200
WORK = ROOT / "var" / "scale-out"
TOPICS = ["hiking", "chess", "pottery", "salsa", "sailing", "baking", "cycling", "painting", "judo", "rowing"]
CITIES = ["Lyon", "Porto", "Gdansk", "Bergen", "Ghent", "Turin", "Leeds", "Graz", "Malmo", "Tartu"]


def run() -> None:
    server = Postgres(WORK / "pgdata")
    server.start()
    web, clusters, replica, primary_web = None, [], None, None
    try:
        replica = server.replica(WORK / "replica")
        env = {**product_env(server.url), "DATABASE_REPLICA_URLS": replica.url}
        manage(env, "migrate", "--verbosity", "0")
        # Its posts come from several threads at once, faster than a new bot's 600 a minute.
        unlimited = {**env, "BOT_REQUESTS_PER_MINUTE": "1000000"}
        kbs = [arg for n in range(KBS) for arg in ("--kb", f"chat-{n}")]
        key = manage(unlimited, "create_bot", "scale", *kbs, "--quiet").strip().splitlines()[-1]
        reader_key = manage(unlimited, "create_bot", "reader", "--kb", "chat", "--quiet").strip().splitlines()[-1]
        web = Process.web(env)
        clusters = [Process.cluster(env, n) for n in (1, 2)]
        web.wait_http()
        for cluster in clusters:  # two machines already running, as a deployment's are
            cluster.wait_warm(CLUSTER_WORKERS)
        watching = threading.Event()
        watcher = threading.Thread(target=clusters_watch, args=(clusters, watching), daemon=True)
        watcher.start()
        started = time.monotonic()
        with Reader(web.url, reader_key) as reader:  # it reads until every turn is extracted
            posted = post_turns(web.url, key, halfway=lambda: replica_kill(replica, reader))
            post_seconds = time.monotonic() - started
            print(f"posted {posted} turns in {SESSIONS} sessions over HTTP in {post_seconds:.1f} s", flush=True)
            done_seconds = wait_extracted(server.url, started)
        posted += reader.posted  # its turns are processed as the others are
        watching.set()
        watcher.join()
        reads_ok = reader.report()
        replica._start()  # again, from where it was killed: it catches up by streaming
        primary_web = Process.web(product_env(server.url), name="web-primary")
        primary_web.wait_http()
        scans = replica.memory_reads()
        read_latency(web.url, primary_web.url, reader_key, server.url, replica.url)
        print(f"scans of the memory tables the replica served meanwhile: {replica.memory_reads() - scans}")
        report(server.url, posted, done_seconds, clusters, reads_ok)
    finally:
        for process in [web, *clusters, primary_web]:
            if process:
                process.stop()
        for pg in (replica, server):
            if pg:
                pg.stop()


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
        self._start()
        with psycopg.connect(self.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE kbsite")
            version = conn.execute("SELECT version()").fetchone()[0]
        print(f"external server: {version.split(',')[0]} on port {self.port}", flush=True)

    def _start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200"
        log = str(self.data / "server.log")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def replica(self, data: Path) -> Postgres:
        """A streaming replica of this server (``pg_basebackup -R``, the same binaries), started."""
        replica = Postgres(data)
        data.mkdir(mode=0o700)
        if os.geteuid() == 0:
            shutil.chown(data, "postgres", "postgres")
        source = ["-h", "127.0.0.1", "-p", str(self.port), "-U", "kbsite"]
        self._run(str(self.bin / "pg_basebackup"), "-D", str(data), "-R", "--checkpoint=fast", *source)
        replica._start()
        print(f"streaming replica on port {replica.port}", flush=True)
        return replica

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def memory_reads(self) -> int:
        """Scans of the memory and turn tables this server has run (a replica counts only the reads it served)."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(
                """SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)::bigint
                   FROM pg_stat_user_tables WHERE relname IN ('memories_memory', 'memories_message')"""
            ).fetchone()[0]


class Process:
    """A child process of the product in a process group of its own, with its log under var/scale-out/."""

    def __init__(self, name: str, args: list[str], env: dict, url: str = ""):
        self.name, self.url = name, url
        self.seen: set[int] = set()
        self.log = open(WORK / f"{name}.log", "w")  # noqa: SIM115 - closed in stop
        self.popen = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    @classmethod
    def web(cls, env: dict, name: str = "web") -> Process:
        """The web tier as ``manage.py serve`` runs it (docs/scaling.md): the ASGI application
        under the project's gunicorn settings, two processes."""
        port = free_port()
        args = [sys.executable, "-m", "gunicorn", "kbsite.asgi:application", "--bind", f"127.0.0.1:{port}"]
        args += ["--workers", "2", "--config", "python:kbsite.gunicorn_conf"]
        return cls(name, args, env, url=f"http://127.0.0.1:{port}")

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
        """Whether ``pid`` was a process of this one's group (a cluster's workers are) while it was watched."""
        return pid in self.seen

    def watch(self) -> None:
        """Note the processes of this one's group now (a cluster's workers are recycled after a number of tasks:
        asked only at the end, a recycled worker's jobs belonged to no cluster)."""
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat") as stat:
                        group = int(stat.read().rpartition(")")[2].split()[2])
                except (OSError, ValueError, IndexError):
                    continue
                if group == self.popen.pid:
                    self.seen.add(int(entry.name))

    def wait_warm(self, workers: int) -> None:
        """Until the cluster's ``workers`` have loaded their models (their log says so), as running machines have."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if Path(self.log.name).read_text(errors="replace").count("kbsite worker warm") >= workers:
                return
            if self.popen.poll() is not None:
                break
            time.sleep(0.3)
        raise SystemExit(f"{self.name} did not start; see {self.log.name}")

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


CLUSTER_WORKERS = 2  # the product's default WORKERS


def clusters_watch(clusters: list[Process], done: threading.Event) -> None:
    """Each cluster's processes, noted every 0.2 s until ``done``."""
    while not done.is_set():
        for cluster in clusters:
            cluster.watch()
        done.wait(0.2)


LATENCY_ROUNDS = 100


def read_latency(replica_web: str, primary_web: str, key: str, primary_url: str, replica_url: str) -> None:
    """Recall through two web tiers over the same data, in turn: one reading from the replica (restarted and caught
    up), one with no replica configured. What a read on a replica costs against one on the primary: the replay
    check and the bot's mark are two statements more."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with psycopg.connect(primary_url, autocommit=True) as primary, psycopg.connect(replica_url) as standby:
            wal = primary.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
            if standby.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [wal]).fetchone()[0]:
                break
        time.sleep(0.5)
    # A web process leaves a replica that failed alone for REPLICA_DOWN_SECONDS (30) before it asks it again.
    time.sleep(32)
    timings: dict[str, list[float]] = {"replica": [], "primary": []}
    with requests.Session() as http:
        http.headers["Authorization"] = f"Bearer {key}"
        for n in range(LATENCY_ROUNDS + 10):
            for label, url in (("replica", replica_web), ("primary", primary_web)):
                query = Reader.QUERIES[n % len(Reader.QUERIES)]
                began = time.perf_counter()
                answer = http.post(f"{url}/api/v1/kbs/chat/recall/", json={"query": query}, timeout=60)
                answer.raise_for_status()
                if n >= 10:  # the first ones warm the processes
                    timings[label].append((time.perf_counter() - began) * 1000)
    for label, values in timings.items():
        values.sort()
        print(
            f"recall through the web tier reading from the {label}: p50 {values[len(values) // 2]:.1f} ms, "
            f"p95 {values[int(len(values) * 0.95)]:.1f} ms ({len(values)} recalls, in turn with the other)"
        )


def turn_text(session: int, turn: int) -> str:
    topic, city = TOPICS[(session + turn) % len(TOPICS)], CITIES[turn % len(CITIES)]
    return f"I went {topic} with my friend Member{session}x{turn} in {city} last weekend, {turn} times this year."


def replica_kill(replica: Postgres, reader: Reader) -> None:
    reader.served_by_replica = replica.memory_reads()
    reader.reads_before_kill = reader.reads
    replica.stop("immediate")
    print(f"replica killed after {reader.reads} reads", flush=True)


class Reader:
    """Another bot reading while the posts go on: recall and the context block in turn, each answer's status
    counted. It wrote its own turns before the load (``reader_start``): its reads may go to the replica as soon as
    the replica has replayed them, while the posting bot's go to the primary until the replica replays each of its
    writes."""

    QUERIES = ["Where did I go hiking?", "Who went sailing with me?", "What did I bake last weekend?"]

    def __init__(self, url: str, key: str):
        self.url, self.key, self.reads, self.statuses = url, key, 0, {}
        self.served_by_replica = self.reads_before_kill = 0
        self.stopping = threading.Event()

    def __enter__(self) -> Reader:
        with requests.Session() as http:
            http.headers["Authorization"] = f"Bearer {self.key}"
            messages = [{"external_id": f"r-t{t}", "speaker": "reader", "content": turn_text(0, t)} for t in range(10)]
            answer = http.post(f"{self.url}/api/v1/kbs/chat/messages/", json={"session_id": "r", "messages": messages})
            answer.raise_for_status()
            self.posted = answer.json()["accepted"]
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(timeout=60)

    def _read(self) -> None:
        with requests.Session() as http:
            http.headers["Authorization"] = f"Bearer {self.key}"
            while not self.stopping.is_set():
                query = self.QUERIES[self.reads % len(self.QUERIES)]
                if self.reads % 2:
                    answer = http.get(f"{self.url}/api/v1/context/", params={"query": query}, timeout=60)
                else:
                    answer = http.post(f"{self.url}/api/v1/kbs/chat/recall/", json={"query": query}, timeout=60)
                self.statuses[answer.status_code] = self.statuses.get(answer.status_code, 0) + 1
                self.reads += 1

    def report(self) -> bool:
        failed = sum(n for status, n in self.statuses.items() if status >= 500)
        print(
            f"reads during the load: {self.reads} (recall and context in turn), "
            f"statuses {dict(sorted(self.statuses.items()))}; {self.reads - self.reads_before_kill} of them after "
            f"the replica was killed; 5xx: {failed}"
        )
        print(f"reads of the memory tables on the replica before it was killed: {self.served_by_replica}")
        return failed == 0 and self.served_by_replica > 0 and self.reads > self.reads_before_kill


def post_turns(url: str, key: str, halfway=None) -> int:
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
                    f"{url}/api/v1/kbs/chat-{session % KBS}/messages/",
                    json={"session_id": f"s{session}", "messages": messages},
                )
                answer.raise_for_status()
                sent += answer.json()["accepted"]
        return sent

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        first = sum(pool.map(post, range(SESSIONS // 2)))
        if halfway:
            halfway()
        return first + sum(pool.map(post, range(SESSIONS // 2, SESSIONS)))


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


def report(database_url: str, posted: int, seconds: float, clusters: list[Process], reads_ok: bool) -> None:
    with psycopg.connect(database_url) as conn:
        stored, sessions = conn.execute("SELECT count(*), count(DISTINCT session_id) FROM memories_message").fetchone()
        runs = conn.execute(
            "SELECT worker, items_read, status FROM memories_jobrun WHERE kind = 'ingest_messages'"
        ).fetchall()
        workers = [row[0] for row in conn.execute("SELECT worker FROM memories_jobrun WHERE worker <> ''")]
        twice = conn.execute(
            """SELECT count(*) FROM (SELECT l.message_id FROM memories_memory_source_messages l
               JOIN memories_memory m ON m.id = l.memory_id GROUP BY l.message_id
               HAVING count(DISTINCT m.job_run_id) > 1) t"""
        ).fetchone()[0]
        sourced = "SELECT count(DISTINCT message_id) FROM memories_memory_source_messages"
        with_memory = conn.execute(sourced).fetchone()[0]
        failed = conn.execute("SELECT count(*) FROM memories_jobrun WHERE status = 'failed'").fetchone()[0]
    read = sum(items for _, items, _ in runs)
    per_cluster, jobs = [0] * len(clusters), [0] * len(clusters)
    for worker, items, _ in runs:
        pid = int(worker.rpartition(":")[2] or 0)
        for n, cluster in enumerate(clusters):
            per_cluster[n] += items if pid and cluster.owns(pid) else 0
    for worker in workers:
        pid = int(worker.rpartition(":")[2] or 0)
        for n, cluster in enumerate(clusters):
            jobs[n] += 1 if pid and cluster.owns(pid) else 0
    print(f"stored {stored} of {posted} turns in {sessions} sessions; all extracted {seconds:.1f} s after the first")
    print(f"throughput: {stored / seconds:.0f} turns/s end to end, two clusters of 2 workers each")
    print(f"extraction runs: {len(runs)}; turns they read: {read} (posted {posted}); failed jobs: {failed}")
    print(f"jobs run per cluster: {', '.join(map(str, jobs))} of {len(workers)}; turns read per cluster: "
          f"{', '.join(map(str, per_cluster))} (a job goes to the cluster that takes it first)")  # fmt: skip
    print(f"turns that are the source of memories: {with_memory}; of them written by two runs: {twice}")
    ok = stored == posted and read == posted and twice == 0 and failed == 0 and all(jobs) and reads_ok
    print("every turn processed exactly once" if ok else "FAILED: see the figures above", flush=True)
    if not ok:
        raise SystemExit(1)
