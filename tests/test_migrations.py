"""Migrations: a database of the last release migrates forward with every row; migrating back and forward works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from tests.conftest import database_url

pytestmark = pytest.mark.migrations

ROOT = Path(__file__).resolve().parent.parent
UPGRADE_DB = "test_kbsite_upgrade"
# The last release's migrations, kept frozen beside the tests (the product now starts from squashed ones).
RELEASED_MODULES = {
    "kbsite": None,
    "memories": "tests.migrations.released.memories",
    "knowledge": "tests.migrations.released.knowledge",
}
VECTOR = "[" + ",".join(["0.05"] * 384) + "]"
NOW = "2026-11-20T10:00:00+00:00"


@pytest.fixture
def scratch_database():
    """An empty database of its own on the test server (its URL), dropped afterwards."""
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{UPGRADE_DB}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{UPGRADE_DB}"')
    yield database_url(UPGRADE_DB)
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{UPGRADE_DB}" WITH (FORCE)')


# Applies the release's migrations the way its `migrate` did, minus the current code's post-migrate handlers
# (which would create content types of apps the release did not have).
APPLY_RELEASED = f"""
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
settings.MIGRATION_MODULES = {RELEASED_MODULES!r}
executor = MigrationExecutor(connection)
executor.migrate(executor.loader.graph.leaf_nodes())
"""


@pytest.fixture
def released_database(scratch_database):
    """The scratch database migrated with the last release's migrations, as that release left it."""
    applied = _manage(scratch_database, "shell", "-c", APPLY_RELEASED)
    assert applied.returncode == 0, applied.stderr
    return scratch_database


def _insert(cursor, table: str, **values) -> int:
    columns = ", ".join(values)
    cursor.execute(
        f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(values))}) RETURNING id",
        list(values.values()),
    )
    return cursor.fetchone()[0]


def _fill_release_rows(url: str) -> dict[str, int]:
    """One of everything a release database holds, written with that release's tables and columns."""
    with psycopg.connect(url, autocommit=True) as db, db.cursor() as c:
        ids = {}
        ids["bot"] = _insert(c, "memories_bot", name="old-bot", description="", is_active=True, created_at=NOW)
        ids["key"] = _insert(
            c, "memories_apikey", bot_id=ids["bot"], name="k", prefix="kb_abc", hashed_key="f" * 64, created_at=NOW
        )
        ids["kb"] = _insert(
            c, "memories_knowledgebase", bot_id=ids["bot"], name="notes", description="", always_on=True,
            consolidate_interval_minutes=30, is_active=True, created_at=NOW, updated_at=NOW, term_stats_memories=0,
            vector_index=False,
        )  # fmt: skip
        ids["session"] = _insert(
            c, "memories_session", kb_id=ids["kb"], external_id="s1", extracted_through=0, archived_through=0,
            created_at=NOW, updated_at=NOW,
        )  # fmt: skip
        ids["message"] = _insert(
            c, "memories_message", kb_id=ids["kb"], session_id=ids["session"], external_id="m1", role="user",
            speaker="Alice", content="I moved to Berlin in May.", created_at=NOW, received_at=NOW,
        )  # fmt: skip
        ids["document"] = _insert(
            c, "knowledge_document", kb_id=ids["kb"], slug="guide", title="Guide", doc_type="upload",
            namespace="documents", source="guide.txt", content="Door code is kept by Bob.", content_hash="h",
            metadata="{}", size_bytes=25, status="done", error="", quarantine_reason="", created_at=NOW, updated_at=NOW,
        )  # fmt: skip
        ids["chunk"] = _insert(
            c, "knowledge_chunk", kb_id=ids["kb"], document_id=ids["document"], ordinal=0, start_char=0,
            text="Door code is kept by Bob.", embedding=VECTOR, created_at=NOW,
        )  # fmt: skip
        ids["item"] = _insert(
            c, "memories_ingestitem", kb_id=ids["kb"], kind="document", source="document:guide", file_name="",
            text="", progress=1, status="done", error="", created_at=NOW, document_id=ids["document"],
        )  # fmt: skip
        job = dict(
            status="succeeded", mode="heuristic", attempts=1, items_read=1, facts_added=1, facts_superseded=0,
            facts_skipped=0, facts_quarantined=0, tokens_in=0, tokens_out=0, error="", detail="{}", created_at=NOW,
            kb_id=ids["kb"],
        )  # fmt: skip
        ids["item_job"] = _insert(
            c, "memories_jobrun", kind="ingest_text", target="x", ingest_item_id=ids["item"], **job
        )
        ids["document_job"] = _insert(c, "memories_jobrun", kind="document", target=str(ids["document"]), **job)
        ids["archive_job"] = _insert(c, "memories_jobrun", kind="archive", target=str(ids["session"]), **job)
        ids["memory"] = _insert(
            c, "memories_memory", kb_id=ids["kb"], text="Alice lives in Berlin.", kind="fact", entities=["alice"],
            topics=["home"], importance=0.5, embedding=VECTOR, content_hash="c" * 64, retired_reason="", source="chat",
            source_file="", mode="heuristic", consolidated=True, quarantined=False, quarantine_reason="",
            created_at=NOW, updated_at=NOW, job_run_id=ids["item_job"], source_chunk_id=ids["chunk"],
            in_vector_index=False,
        )  # fmt: skip
        _insert(c, "memories_memory_source_messages", memory_id=ids["memory"], message_id=ids["message"])
        ids["insight"] = _insert(
            c, "memories_consolidation", kb_id=ids["kb"], text="Alice settled in Berlin.", mode="heuristic",
            embedding=VECTOR, created_at=NOW,
        )  # fmt: skip
        _insert(c, "memories_consolidation_memories", consolidation_id=ids["insight"], memory_id=ids["memory"])
        a = _insert(c, "memories_entity", kb_id=ids["kb"], name="alice", display_name="Alice", created_at=NOW)
        b = _insert(c, "memories_entity", kb_id=ids["kb"], name="berlin", display_name="Berlin", created_at=NOW)
        _insert(
            c, "memories_edge", kb_id=ids["kb"], src_id=a, dst_id=b, relation="lives_in", memory_id=ids["memory"],
            created_at=NOW,
        )  # fmt: skip
        _insert(c, "memories_termstat", kb_id=ids["kb"], term="berlin", ndoc=1)
        # The release's content types of the models that move to the base app or are renamed, with a permission
        # of each.
        for model in ("bot", "apikey", "knowledgebase", "jobrun", "consolidation"):
            ids[f"ct_{model}"] = _insert(c, "django_content_type", app_label="memories", model=model)
            _insert(c, "auth_permission", name=f"Can add {model}", content_type_id=ids[f"ct_{model}"],
                    codename=f"add_{model}")  # fmt: skip
    return ids


# Read through the ORM of the current code, in a process of the product's own.
READ_BACK = """
import json
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django_q.models import Schedule
from kbsite.models import ApiKey, Bot, JobRun, KnowledgeBase
from knowledge.models import Chunk, Document
from memories.models import Edge, IngestItem, Insight, Memory, Message, Session, TermStat
kb = KnowledgeBase.objects.get(name="notes")
memory = Memory.objects.get()
print(json.dumps({
    "bot": Bot.objects.get().name, "key": ApiKey.objects.active().get().hashed_key[:4], "kb": str(kb),
    "session": Session.objects.get().external_id, "message": Message.objects.get().content,
    "memory": [memory.text, memory.sources(), len(memory.embedding), "berlin" in memory.search_vector],
    "insight": [[i.text, [m.pk for m in i.memories.all()]] for i in Insight.objects.all()],
    "edge": [str(e) for e in Edge.objects.all()], "termstat": TermStat.objects.get().term,
    "chunk": Chunk.objects.get().document.slug, "document": Document.objects.get().slug,
    "jobs": {j.kind: [type(j.object).__name__, j.object.pk] for j in JobRun.objects.all()},
    "item": IngestItem.objects.get().job_runs.get().kind,
    "content_types": {
        ct.model: ct.pk
        for ct in ContentType.objects.filter(app_label="kbsite", model__in=["bot", "apikey", "knowledgebase", "jobrun"])
    },
    "permission": Permission.objects.get(codename="add_bot").content_type.app_label,
    "insight_type": ContentType.objects.get(app_label="memories", model="insight").pk,
    "schedule": Schedule.objects.filter(name=f"consolidate-kb-{kb.pk}").exists(),
}))
"""


def _manage(url: str, *args: str) -> subprocess.CompletedProcess:
    from django.conf import settings

    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["DATABASE_URL"] = url
    env["KBSITE_DATA_DIR"] = str(settings.KBSITE_DATA_DIR)  # the test's own: migrate moves KB folders
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_a_release_database_migrates_forward_with_its_rows(released_database, settings):
    """`manage.py migrate` takes a database of the last release (its migrations went both ways between the apps)
    to the new layout: the squashed migrations are recorded without running, the later ones run, and every row
    is still there and readable through the new models, job runs point at their objects, and the moved models'
    content types (with their permissions) follow them to the base app; the KB's folder moves to its ids."""
    ids = _fill_release_rows(released_database)
    old_folder = settings.KBSITE_DATA_DIR / "old-bot" / "notes"  # where the release kept the KB's files
    (old_folder / "knowledge").mkdir(parents=True)
    (old_folder / "knowledge" / "door.md").write_text("# Door\n")

    migrate = _manage(released_database, "migrate")
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    moved = settings.KBSITE_DATA_DIR / f"bot_{ids['bot']}" / f"kb_{ids['kb']}" / "knowledge" / "door.md"
    assert moved.read_text() == "# Door\n" and not old_folder.exists()  # the folder moved to the KB's ids
    assert "Applying kbsite.0001_initial" not in migrate.stdout  # stands for the release: recorded, not run
    assert _manage(released_database, "migrate", "--check").returncode == 0

    read = _manage(released_database, "shell", "-c", READ_BACK)
    assert read.returncode == 0, read.stderr
    found = json.loads(read.stdout.strip().splitlines()[-1])  # after the shell's own greeting
    assert found["bot"] == "old-bot" and found["key"] == "ffff" and found["kb"] == "old-bot/notes"
    assert found["session"] == "s1" and found["message"] == "I moved to Berlin in May."
    assert found["memory"] == [
        "Alice lives in Berlin.",
        [
            {"type": "message", "session_id": "s1", "external_id": "m1"},
            {"type": "document", "document": "guide", "chunk": 0},
        ],
        384,
        True,
    ]
    assert found["insight"] == [["Alice settled in Berlin.", [ids["memory"]]]]
    assert found["edge"] == ["Alice -lives_in-> Berlin"] and found["termstat"] == "berlin"
    assert found["chunk"] == "guide" and found["document"] == "guide"
    assert found["jobs"] == {
        "ingest_text": ["IngestItem", ids["item"]],
        "document": ["Document", ids["document"]],
        "archive": ["Session", ids["session"]],
    }
    assert found["item"] == "ingest_text"
    assert found["content_types"] == {m: ids[f"ct_{m}"] for m in ("bot", "apikey", "knowledgebase", "jobrun")}
    assert found["permission"] == "kbsite"
    assert found["insight_type"] == ids["ct_consolidation"]  # renamed, with its permissions
    assert found["schedule"] is True  # the post-migrate schedule sync read the KB through the new models


def test_a_new_database_migrates_back_and_forward_again(scratch_database):
    """On a database migrated from zero, the base app's migrations go back to the squashed schema and forward
    again; the schedule sync after a partial migrate waits for the full one instead of reading half-migrated
    tables."""
    legacy_column = "SELECT count(*) FROM information_schema.columns WHERE column_name = 'ingest_item_id'"
    assert _manage(scratch_database, "migrate").returncode == 0
    back = _manage(scratch_database, "migrate", "kbsite", "0001")
    assert back.returncode == 0, back.stderr
    assert "not at its latest migrations" in back.stderr
    with psycopg.connect(scratch_database) as db:
        assert db.execute(legacy_column).fetchone()[0] == 1
    forward = _manage(scratch_database, "migrate")
    assert forward.returncode == 0, forward.stderr
    assert _manage(scratch_database, "migrate", "--check").returncode == 0
    with psycopg.connect(scratch_database) as db:
        assert db.execute(legacy_column).fetchone()[0] == 0
