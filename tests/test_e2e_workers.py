"""End to end: the real `manage.py qcluster` process does the background work."""

from __future__ import annotations

import os
import time

import pytest

from kbsite.models import JobRun
from memories.models import Insight, Memory
from memories.schedules import ensure_schedules
from tests.conftest import wait_for

pytestmark = pytest.mark.e2e


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
    wait_for(lambda: Insight.objects.filter(kb=kb).exists(), 180, "a scheduled consolidation")
    run = JobRun.objects.get(kind="consolidate", status="succeeded")
    assert run.target == "scheduled" and run.mode == "heuristic"
    assert set(JobRun.objects.exclude(kind="consolidate").values_list("status", flat=True)) == {"succeeded"}
