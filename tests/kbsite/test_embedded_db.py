"""The embedded PostgreSQL under var/, started by processes of their own as the product's are."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import psycopg
import pytest

from tests.conftest import ROOT, wait_for

START = "import sys; from pathlib import Path; from kbsite import embedded_db; "


@pytest.fixture
def var():
    """A var/ for a server of its own, outside pytest's base directory: the embedded PostgreSQL runs as another
    user when tests run as root, and each pytest session makes ``/tmp/pytest-of-root`` private again (0700) as
    it starts, which cut a running server off from its files ("could not open file global/pg_control")."""
    path = Path(tempfile.mkdtemp(prefix="kbsite-test-")) / "var"
    yield path
    shutil.rmtree(path.parent, ignore_errors=True)


def _postmaster(pgdata):
    lines = (pgdata / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[7].strip() if len(lines) > 7 else ""


@pytest.mark.e2e
def test_a_start_waits_for_a_server_still_shutting_down(var):
    """A process that starts while the previous server is still stopping waits for it, then starts a new one
    (the wheel took a stopping server for a running one and failed on a bare AssertionError)."""
    pgdata = var / "pgdata"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    # A holder that vanishes without its clean-up: the server goes on running.
    left = START + "embedded_db.start(Path(sys.argv[1])); import os; os._exit(0)"
    subprocess.run([sys.executable, "-c", left, str(pgdata)], cwd=ROOT, env=env, check=True, timeout=120)
    old_pid, status = _postmaster(pgdata)
    assert status == "ready"
    starter = None
    try:
        with psycopg.connect(f"postgresql://postgres@/postgres?host={pgdata}", autocommit=True) as client:
            os.kill(old_pid, signal.SIGTERM)  # a smart shutdown: it waits for its client
            wait_for(lambda: _postmaster(pgdata)[1] == "stopping", 10, "the server to be stopping")
            start = START + "s = embedded_db.start(Path(sys.argv[1])); print(s.get_postmaster_info().status)"
            starter = subprocess.Popen(
                [sys.executable, "-c", start, str(pgdata)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            time.sleep(3)
            assert starter.poll() is None, starter.stdout.read()  # waiting, not failed
            assert client.execute("SELECT 1").fetchone() == (1,)
        said, _ = starter.communicate(timeout=120)
        assert starter.returncode == 0 and said.strip().endswith("ready"), said
        assert not psutil.pid_exists(old_pid) or psutil.Process(old_pid).status() == psutil.STATUS_ZOMBIE
        # The starter was the last holder: it stopped the server it started as it exited.
        wait_for(lambda: not (pgdata / "postmaster.pid").exists(), 20, "the new server to stop")
    finally:
        if starter and starter.poll() is None:
            starter.kill()
        if (pgdata / "postmaster.pid").exists():
            os.kill(_postmaster(pgdata)[0], signal.SIGINT)
