"""End to end: the real `manage.py qcluster` process does the background work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from memories.models import Consolidation, JobRun, Memory
from memories.schedules import ensure_schedules

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.e2e


def _database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ":"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    if str(db.get("HOST", "")).startswith("/"):
        return f"postgresql://{db['USER']}{password}@{port}/{db['NAME']}?host={db['HOST']}"
    return f"postgresql://{db['USER']}{password}@{db['HOST']}{port}/{db['NAME']}"


@pytest.fixture
def qcluster(settings):
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": _database_url(),
            "KBSITE_DATA_DIR": str(settings.KBSITE_DATA_DIR),
            "LLM_BASE_URL": settings.LLM_BASE_URL,
            "LLM_MODEL": settings.LLM_MODEL,
            "WORKERS": "2",
            "PYTHONUNBUFFERED": "1",
        }
    )
    log = open(settings.KBSITE_DATA_DIR.parent / "qcluster.log", "w+")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "qcluster"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    yield proc
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.seek(0)
    print(log.read()[-3000:])
    log.close()


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def test_workers_ingest_and_consolidate_on_their_own(api, kb, qcluster):
    """Turns posted through the API and a file dropped in the inbox become memories, and the KB's schedule
    consolidates them into an insight, with no help from the test."""
    kb.consolidate_interval_minutes = 1
    kb.save()
    ensure_schedules()
    response = api.post(
        "/api/v1/kbs/notes/messages/",
        json={
            "session_id": "e2e",
            "messages": [
                {"external_id": "t1", "speaker": "Nora", "content": "I started learning the cello in January."},
                {"external_id": "t2", "speaker": "Nora", "content": "My sister Ines lives in Lisbon."},
            ],
        },
    )
    assert response.status_code == 202
    inbox_file = kb.inbox_dir / "garden.txt"
    inbox_file.write_text("Nora grows tomatoes and basil on her balcony every summer.")
    past = time.time() - 60
    os.utime(inbox_file, (past, past))

    wait_for(lambda: Memory.objects.filter(source="chat").count() == 2, 90, "memories from posted turns")
    wait_for(lambda: Memory.objects.filter(source="inbox:garden.txt").exists(), 90, "memories from the inbox file")
    wait_for(lambda: (kb.processed_dir / "garden.txt").exists(), 30, "the file to move to processed/")
    wait_for(lambda: Consolidation.objects.filter(kb=kb).exists(), 180, "a scheduled consolidation")
    run = JobRun.objects.get(kind="consolidate", status="succeeded")
    assert run.target == "scheduled" and run.mode == "heuristic"
    assert set(JobRun.objects.exclude(kind="consolidate").values_list("status", flat=True)) == {"succeeded"}
