"""``manage.py serve`` as a supervisor: what it started dies with it, however it dies, and a start over what an
earlier run left stops it or says plainly why it cannot start."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
import requests

from tests.conftest import ROOT, wait_for

BANNER_END = "Stop: Ctrl+C"


@pytest.fixture
def var():
    """A var/ for a server of its own, outside pytest's base directory: the embedded PostgreSQL runs as another
    user when tests run as root, and each pytest session makes ``/tmp/pytest-of-root`` private again (0700) as
    it starts, which cut a running server off from its files ("could not open file global/pg_control")."""
    path = Path(tempfile.mkdtemp(prefix="kbsite-test-")) / "var"
    yield path
    shutil.rmtree(path.parent, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(var: Path, port: int) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"KBSITE_VAR_DIR": str(var), "PYTHONUNBUFFERED": "1", "WORKERS": "1"})
    command = [sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _until_banner(serve: subprocess.Popen) -> str:
    """What serve printed up to the end of its banner (it answers then); fails if it exits first."""
    output, deadline = [], time.monotonic() + 180
    while time.monotonic() < deadline and not any(BANNER_END in line for line in output):
        line = serve.stdout.readline()
        if not line and serve.poll() is not None:
            break
        output.append(line)
    assert any(BANNER_END in line for line in output), "serve printed no banner:\n" + "".join(output)
    return "".join(output)


def _family(serve: subprocess.Popen, var: Path) -> list[psutil.Process]:
    """serve's processes and the embedded PostgreSQL it started."""
    postmaster = int((var / "pgdata" / "postmaster.pid").read_text().split()[0])
    return [*psutil.Process(serve.pid).children(recursive=True), psutil.Process(postmaster)]


def _running(processes: list[psutil.Process]) -> list[psutil.Process]:
    def runs(process: psutil.Process) -> bool:
        try:
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    return [process for process in processes if runs(process)]


def _stop(serve: subprocess.Popen) -> str:
    serve.send_signal(signal.SIGTERM)
    rest, _ = serve.communicate(timeout=60)
    return rest


def _kill_all(processes: list[psutil.Process]) -> None:
    """After a failed test: what it started does not outlive it."""
    for process in _running(processes):
        process.kill()


@pytest.mark.e2e
def test_kill_9_of_serve_leaves_nothing_running(var):
    """gunicorn, the qcluster and the embedded PostgreSQL stop within seconds of a kill -9 of serve."""
    port = _free_port()
    serve = _serve(var, port)
    family = []
    try:
        _until_banner(serve)
        family = _family(serve, var)
        assert len(family) >= 5  # gunicorn and its worker, django-q's cluster, PostgreSQL
        serve.kill()
        serve.wait()
        try:
            wait_for(lambda: not _running(family), 20, "serve's processes to stop")
        except AssertionError:
            print([(p.pid, p.status(), p.cmdline()[-2:]) for p in _running(family)])
            print((var / "pgdata" / ".handle_pids.json").read_text())
            print((var / "log" / "kbsite.log").read_text()[-3000:])
            raise
        wait_for(lambda: not (var / "pgdata" / "postmaster.pid").exists(), 10, "PostgreSQL to stop")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))  # the port is free again
    finally:
        serve.kill()
        _kill_all(family)


@pytest.mark.e2e
def test_a_start_over_leftovers_stops_them_or_says_why(var):
    """A second serve refuses while the first runs; a start after a kill -9 that left a stuck gunicorn stops it and
    serves; a port another program holds is named before anything starts. Nothing is left running at the end."""
    port = _free_port()
    first = _serve(var, port)
    started = []
    try:
        _until_banner(first)
        started += _family(first, var)

        second = _serve(var, _free_port())
        said, _ = second.communicate(timeout=60)
        assert second.returncode == 1 and BANNER_END not in said
        assert f"already running from {var} (manage.py serve, pid {first.pid}, web on 127.0.0.1:{port})" in said

        # gunicorn stuck (stopped: its parent-death signal cannot stop it) and serve killed with its watchdog:
        # gunicorn lingers, holding the port.
        gunicorn = psutil.Process(first.pid).children()[0]
        assert "gunicorn" in " ".join(gunicorn.cmdline())
        os.killpg(gunicorn.pid, signal.SIGSTOP)
        recorded = json.loads((var / "serve.pid").read_text())["children"]
        os.kill(next(c["pid"] for c in recorded if c["name"] == "watchdog"), signal.SIGKILL)
        first.kill()
        first.wait()
        time.sleep(1)
        assert gunicorn.status() == psutil.STATUS_STOPPED

        third = _serve(var, port)
        said = _until_banner(third)
        started += _family(third, var)
        assert f"stopped what an earlier run left running: gunicorn (pid {gunicorn.pid}" in said
        assert requests.get(f"http://127.0.0.1:{port}/api/health/", timeout=10).json()["status"] == "ok"
        assert "kbsite: stopped in" in _stop(third)

        with socket.socket() as stranger:
            stranger.bind(("127.0.0.1", port))
            stranger.listen()
            fourth = _serve(var, port)
            said, _ = fourth.communicate(timeout=60)
        assert fourth.returncode == 1 and BANNER_END not in said
        assert f"port {port} (127.0.0.1:{port}) is in use by another program" in said
        wait_for(lambda: not _running(started), 20, "every process to stop")
        wait_for(lambda: not (var / "pgdata" / "postmaster.pid").exists(), 10, "PostgreSQL to stop")
    finally:
        for serve in (first, locals().get("third")):
            if serve and serve.poll() is None:
                serve.kill()
        _kill_all(started)
