"""An end user's data rights: listed with counts, exported as JSON Lines, erased everywhere with an audit record."""

from __future__ import annotations

import json
import os

import pytest
from django.conf import settings
from django.db import connection

from kbsite.models import EndUser, Erasure
from memories import ingest
from memories.models import Insight, Memory
from tests.conftest import run_queued_tasks

ALICE, BOB = "alice", "bob"
# Words that appear only in what each user said or sent, to find any trace of it.
MARK = {ALICE: "quokkaberry", BOB: "wombatfig"}


def post(api, session, user, *texts):
    messages = [{"external_id": f"{session}-{n}", "content": t} for n, t in enumerate(texts)]
    return api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "user_id": user, "messages": messages})


@pytest.fixture
def two_users(api, kb):
    """Each user holds turns, memories (one retired), insights, an archived conversation, an uploaded file, a
    JSON document, an ingested text and a memory added by a tool; the KB holds shared knowledge too."""
    for user, mark in MARK.items():
        post(
            api,
            f"{user}-chat",
            user,
            f"I grow {mark} bushes in my garden behind the house.",
            f"My favourite jam is made from {mark} picked in late summer.",
            f"I sell {mark} jam at the farmers market every saturday morning.",
        )
        upload = api.post(
            "/api/v1/kbs/notes/documents/",
            files={"file": (f"{user}-notes.txt", f"Harvest log: 12 kg of {mark} this year.".encode())},
            data={"user_id": user},
        )
        assert upload.status_code == 202, upload.text
        api.post(
            "/api/v1/kbs/notes/documents/", json={"content": f"# Recipe\nBoil the {mark} slowly.", "user_id": user}
        )
        api.post("/api/v1/kbs/notes/ingest/", json={"text": f"I keep {mark} seeds in the shed.", "user_id": user})
        api.post(
            "/api/v1/tools/memory_add/",
            json={"arguments": {"text": f"The user waters the {mark} bushes daily."}, "user_id": user},
        )
        inbox = kb.inbox_dir / "users" / user
        inbox.mkdir(parents=True)
        (inbox / "garden.txt").write_text(f"The {mark} hedge is two metres tall.")
        (inbox / "broken.pdf").write_text(f"not a pdf about {mark}")
        (inbox / "waiting.txt").write_text(f"Later: {mark} pie.")
        for path in inbox.iterdir():
            os.utime(path, (0, 0) if path.name != "waiting.txt" else None)  # waiting.txt is still being written
        ingest.inbox_scan()
        run_queued_tasks()
        assert api.post("/api/v1/kbs/notes/archive/", json={"session_id": f"{user}-chat", "keep_recent": 0}).ok
        run_queued_tasks()
        memory = Memory.objects.filter(end_user__external_id=user).first()
        api.post(f"/api/v1/kbs/notes/memories/{memory.pk}/retire/", json={"reason": "operator"})
    api.post(
        "/api/v1/kbs/notes/messages/",
        json={
            "session_id": "shared",
            "messages": [{"external_id": "s-1", "content": "The garden club meets on mondays."}],
        },
    )
    for _ in range(4):
        api.post("/api/v1/kbs/notes/consolidate/")
        run_queued_tasks()
    assert Insight.objects.filter(end_user__external_id=ALICE).exists()
    return kb


def traces(word: str) -> dict[str, int]:
    """Rows of every table, and files of the data folder, holding ``word``."""
    found = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT count(*) FROM "{table}" t WHERE t::text ILIKE %s', [f"%{word}%"])
            if n := cursor.fetchone()[0]:
                found[table] = n
    for path in settings.KBSITE_DATA_DIR.rglob("*"):
        if path.is_file() and word.encode() in path.read_bytes().lower():
            found[str(path)] = 1
    return found


def test_users_are_listed_with_counts(api, two_users, other_api):
    users = api.get("/api/v1/users/").json()["results"]
    assert [u["user_id"] for u in users] == [ALICE, BOB]
    alice = api.get(f"/api/v1/users/{ALICE}/").json()
    assert alice["sessions"] == 1 and alice["turns"] == 3 and alice["memories"] >= 4 and alice["documents"] >= 3
    assert api.get("/api/v1/users/", params={"kb": "notes"}).json()["count"] == 2
    assert api.get("/api/v1/users/", params={"kb": "nope"}).status_code == 404
    assert api.get("/api/v1/users/carol/").status_code == 404
    assert api.get("/api/v1/users/bad%20id/").status_code == 404
    # Another bot sees none of them.
    assert other_api.get("/api/v1/users/").json()["count"] == 0
    assert other_api.get(f"/api/v1/users/{ALICE}/").status_code == 404
    assert other_api.delete(f"/api/v1/users/{ALICE}/").status_code == 404


def test_export_holds_everything_about_the_user_and_nothing_else(api, two_users):
    response = api.get(f"/api/v1/users/{ALICE}/export/")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in response.text.splitlines()]
    kinds = {line["type"] for line in lines}
    assert kinds == {"export", "user", "session", "turn", "memory", "insight", "document"}
    assert MARK[ALICE] in response.text.lower() and MARK[BOB] not in response.text.lower()
    assert "garden club" not in response.text  # shared knowledge is not the user's
    memories = [line for line in lines if line["type"] == "memory"]
    assert any(m["retired_at"] for m in memories), "retired history is exported"
    assert any(s["type"] == "message" for m in memories for s in m["sources"]), "with provenance"
    assert any(d["doc_type"] == "conversation" for d in lines if d["type"] == "document")


def test_erase_leaves_no_row_and_no_file_with_the_users_text(api, two_users):
    before = traces(MARK[ALICE])
    assert "memories_memory" in before and "memories_message" in before and "knowledge_document" in before
    assert any(key.endswith(".txt") for key in before), before
    assert any("/processed/users/" in key for key in before) and any("/failed/users/" in key for key in before)
    response = api.delete(f"/api/v1/users/{ALICE}/")
    assert response.status_code == 200, response.text
    erased = response.json()["erased"]
    assert erased["turns"] == 3 and erased["sessions"] == 1 and erased["memories"] >= 4 and erased["files"] == 1
    assert erased["insights"] >= 1 and erased["documents"] >= 3 and erased["ingest_items"] >= 1
    assert erased["inbox_files"] == 4  # processed, failed with its reason, and one still waiting
    assert traces(MARK[ALICE]) == {}
    assert traces(ALICE) == {}  # nor their id: not in a job run's target, not in a folder name
    assert not EndUser.objects.filter(external_id=ALICE).exists()
    # Bob and the shared knowledge are untouched.
    assert "memories_memory" in traces(MARK[BOB]) and any(k.endswith(".txt") for k in traces(MARK[BOB]))
    assert Memory.objects.filter(end_user__isnull=True, text__icontains="garden club").exists()
    # The audit record says who, when and how many, without content.
    audit = Erasure.objects.get()
    assert audit.user_id_sha256 == Erasure.digest(ALICE) and audit.counts == erased
    assert "API key" in audit.erased_by
    assert api.get(f"/api/v1/users/{ALICE}/").status_code == 404
    assert api.delete(f"/api/v1/users/{ALICE}/").status_code == 404


def test_erasing_the_user_dot_dot_touches_no_other_folder(api, kb):
    """ ".." is a valid user_id (the contract's characters), but names no folder: erasing it leaves the KB's inbox,
    processed and failed files alone."""
    (kb.inbox_dir / "shared.txt").write_text("The shared inbox file.")
    (kb.processed_dir / "users" / "bob").mkdir(parents=True)
    (kb.processed_dir / "users" / "bob" / "done.txt").write_text("Bob's processed file.")
    assert post(api, "dots", "..", "I like the number two.").status_code == 202
    response = api.delete("/api/v1/users/%2E%2E/")  # as "..", a client would reach /api/v1/
    assert response.status_code == 200, response.text
    assert response.json()["erased"]["turns"] == 1 and response.json()["erased"]["inbox_files"] == 0
    assert (kb.inbox_dir / "shared.txt").exists() and (kb.processed_dir / "users" / "bob" / "done.txt").exists()
