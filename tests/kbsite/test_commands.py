"""Management commands and the product's own start-up, run for real."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import requests
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


def test_create_bot_prints_a_working_key(live_server, transactional_db):
    """create_bot NAME prints a key that authenticates as that bot, and only that bot."""
    out = io.StringIO()
    call_command("create_bot", "support", "--kb", "faq", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    response = requests.get(f"{live_server.url}/api/v1/kbs/", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert response.status_code == 200
    assert [k["name"] for k in response.json()["results"]] == ["faq"]


def test_create_bot_refuses_bad_names(db):
    """A bot name that is not a slug is refused with the rule."""
    with pytest.raises(CommandError, match="lowercase"):
        call_command("create_bot", "Bad Name")


def test_schema_and_docs_are_served_offline(live_server, transactional_db):
    """/api/schema/ and /api/docs/ answer without a key and load their assets locally."""
    schema = requests.get(f"{live_server.url}/api/schema/?format=json", timeout=30)
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/kbs/" in paths and "/api/v1/kbs/{kb_name}/memories/" in paths
    docs = requests.get(f"{live_server.url}/api/docs/", timeout=30)
    assert docs.status_code == 200
    assets = re.findall(r'src="([^"]+\.js)"', docs.text)
    assert assets and all(a.startswith("/static/") for a in assets)
    for asset in assets:
        assert requests.get(f"{live_server.url}{asset}", timeout=30).status_code == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.e2e
def test_serve_runs_web_and_workers_from_a_cold_start(tmp_path):
    """manage.py serve on a brand-new embedded database: admin login, docs, 200 with a key, 401 without."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update({"KBSITE_VAR_DIR": str(tmp_path / "var"), "PYTHONUNBUFFERED": "1"})
    env.pop("DJANGO_SETTINGS_MODULE", None)
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "serve", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = []
    try:
        key = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any("Stop: Ctrl+C" in line for line in output):
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            output.append(line)
            match = re.search(r"API key: (kb_\S+)", line)
            if match:
                key = match.group(1)
        assert key, "serve never printed the demo key:\n" + "".join(output)
        # The banner comes once the web answers, and is the last thing printed until the workers are warm.
        assert requests.get(f"http://127.0.0.1:{port}/api/health/", timeout=10).status_code == 200
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if requests.get(f"{base}/admin/login/", timeout=5).status_code == 200:
                    break
            except requests.RequestException:  # the socket listens before the worker has booted
                time.sleep(0.2)
        cold_start = time.monotonic() - started
        print(f"cold start of embedded database + product: {cold_start:.1f}s")
        assert requests.get(f"{base}/admin/login/", timeout=10).status_code == 200
        assert requests.get(f"{base}/api/docs/", timeout=10).status_code == 200
        assert requests.get(f"{base}/api/v1/kbs/", timeout=10).status_code == 401
        authed = requests.get(f"{base}/api/v1/kbs/", headers={"Authorization": f"Bearer {key}"}, timeout=10)
        assert authed.status_code == 200 and authed.json()["results"][0]["name"] == "notes"
        # Errors of the web server itself, before any view, are JSON too.
        unknown = requests.get(f"{base}/api/v1/nope/", headers={"Authorization": f"Bearer {key}"}, timeout=10)
        assert unknown.status_code == 404 and "No API endpoint" in unknown.json()["detail"]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(b"GARBAGE\x01 /api/v1/kbs/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
            answer = raw.recv(4096).decode("latin1")
        head, _, body = answer.partition("\r\n\r\n")
        assert head.startswith("HTTP/1.1 400") and "Content-Type: application/json" in head
        assert "Bad Request" in json.loads(body)["detail"]
        # The chat proxy and the MCP server are served by the same process (ASGI).
        chat = requests.post(
            f"{base}/openai/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        assert chat.status_code == 503 and chat.json()["error"]["code"] == "no_upstream"  # offline: no upstream
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        mcp_headers = {"Accept": "application/json, text/event-stream"}
        assert requests.post(f"{base}/mcp/", json=initialize, headers=mcp_headers, timeout=30).status_code == 401
        mcp_headers["Authorization"] = f"Bearer {key}"
        answered = requests.post(f"{base}/mcp/", json=initialize, headers=mcp_headers, timeout=30)
        assert answered.status_code == 200 and answered.json()["result"]["serverInfo"]["name"] == "kbsite"

        # The banner's two commands work as printed: two turns posted, then the context block holding their facts,
        # once the console has said the workers are warm.
        banner = "".join(output)
        post_turn = re.search(r"Post two turns:\n\s+(curl .+)\n", banner).group(1)
        read_context = re.search(r"Read the context block.*:\n\s+(curl .+)\n", banner).group(1)
        posted = subprocess.run(post_turn, shell=True, capture_output=True, text=True).stdout
        assert json.loads(posted)["accepted"] == 2, posted
        warm = re.compile(r"^kbsite: the \d+ job workers are warm")
        while not any(warm.match(line) for line in output) and time.monotonic() < deadline + 180:
            output.append(proc.stdout.readline())
        assert any(warm.match(line) for line in output), "".join(output)
        for _ in range(60):
            block = subprocess.run(read_context, shell=True, capture_output=True, text=True).stdout
            if "Lisbon" in block:
                break
            time.sleep(1)
        assert "Lisbon" in block and "peanuts" in block, block
        # The console holds kbsite's own lines only: the libraries' logs, warnings and progress bars are in the log.
        noise = [line for line in output if re.search(r"INFO|WARNING|Warning|Loading|it/s", line)]
        assert not noise, noise
        assert "Starting gunicorn" in (tmp_path / "var" / "log" / "kbsite.log").read_text()
        family = psutil.Process(proc.pid).children(recursive=True)
        assert len(family) >= 3  # gunicorn and its worker, django-q's cluster
    finally:
        stop_asked = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        # Issue 42: "stopped" is said once everything is gone: when the line is read, nothing of serve's family is
        # left, nor the embedded server (it said "stopped in 1.4s" while PostgreSQL and the watchdog ran until 4 s).
        said = ""
        while "kbsite: stopped in" not in said and time.monotonic() < stop_asked + 60:
            line = proc.stdout.readline()
            if not line:
                break
            said += line
        left = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        postmaster = (tmp_path / "var" / "pgdata" / "postmaster.pid").exists()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    stopped_in = time.monotonic() - stop_asked
    print(f"serve stopped in {stopped_in:.1f}s")
    assert stopped_in < 20, stopped_in
    assert "kbsite: stopped in" in said and "embedded database)" in said, said
    assert not left, left
    assert not postmaster


def test_serve_says_warm_only_once_the_workers_are():
    """Until serve announces the workers warm, nothing it prints says "warm": the banner's "job workers are warming
    up" matched a wait for "workers are warm", and the turns posted then waited 14 s for the workers' model."""
    from kbsite.management.commands.serve import Command

    out = io.StringIO()
    Command(stdout=out)._banner("127.0.0.1:8000", 7.0, "secret", "kb_key", Path("var/log/kbsite.log"), True)
    assert "Post two turns:" in out.getvalue()
    assert "warm" not in out.getvalue().lower(), out.getvalue()


def test_health_says_whether_the_process_is_warm(client, db):
    """/api/health/ needs no key: the database answers, and whether this process has its query embedding ready."""
    from kbsite.serving import warm

    warm.clear()
    cold = client.get("/api/health/")
    assert cold.status_code == 200 and cold.json() == {"status": "ok", "warm": False, "mode": "offline"}
    warm.set()
    assert client.get("/api/health/").json()["warm"] is True
