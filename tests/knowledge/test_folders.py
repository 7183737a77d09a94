"""A KB's folder on disk: keyed by ids, so renamed bots and KBs keep their own files; old folders move to it."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.core.exceptions import ValidationError

from kbsite.models import Bot, JobRun, KnowledgeBase
from knowledge import services
from knowledge.models import Document
from tests.conftest import run_queued_tasks
from tests.factories import KnowledgeBaseFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("kbsite.migrations.0010_kb_folders_by_id")

DOCS = "/api/v1/kbs/notes/documents/"


def _fill(api, kb: KnowledgeBase, word: str) -> None:
    """A markdown file in the KB's knowledge/ folder and an uploaded file, both indexed, each saying ``word``."""
    (kb.knowledge_dir / f"{word}-notes.md").write_text(f"# {word} notes\n\nThe {word} door code is 4711.\n")
    upload = api.post(DOCS, files=[("file", (f"{word}-manual.txt", f"The {word} manual says: oil the hinges."))])
    assert upload.status_code == 202, upload.text
    run_queued_tasks()
    assert services.knowledge_sync(kb=kb)["added"] == 1


def _sync_all() -> None:
    job = services.knowledge_sync_all(job=JobRun.objects.create(kind=JobRun.Kind.SYNC))
    assert job.status == JobRun.Status.SUCCEEDED, job.error


def _rename(bot: Bot, name: str) -> None:
    bot.name = name
    bot.save()


def _own(kb: KnowledgeBase) -> dict[str, str]:
    """The KB's documents as slug → status, deleted ones included."""
    return {d.slug: "deleted" if d.deleted_at else d.status for d in Document.objects.filter(kb=kb)}


def _files(kb: KnowledgeBase) -> set[str]:
    kb = KnowledgeBase.objects.get(pk=kb.pk)
    return {str(p.relative_to(kb.folder)) for p in kb.folder.rglob("*") if p.is_file()}


def test_renamed_bots_each_keep_exactly_their_own_documents_and_files(api, other_api, kb, other_bot):
    """B's operator renames B, then A's operator renames A to B's old name: after the next sync each bot's KB of the
    same name still holds its own documents and files, none marked deleted, and a search by A finds none of B's."""
    theirs = KnowledgeBaseFactory(bot=other_bot, name="notes")
    _fill(api, kb, "alpha")
    _fill(other_api, theirs, "beta")
    mine_before, theirs_before = _own(kb), _own(theirs)
    mine_files, theirs_files = _files(kb), _files(theirs)
    assert set(mine_before.values()) == {"done"} and len(mine_before) == 2

    _rename(other_bot, "gamma")
    _rename(Bot.objects.get(pk=kb.bot_id), "beta")
    _sync_all()

    assert _own(kb) == mine_before and _own(theirs) == theirs_before
    assert _files(kb) == mine_files and _files(theirs) == theirs_files
    assert all(name.startswith(("knowledge/alpha-", "uploads/alpha-")) for name in mine_files)
    found = api.post(f"{DOCS}search/", json={"query": "door code manual hinges"}).json()["results"]
    assert found and all(hit["slug"].startswith("alpha-") for hit in found), found


def test_a_renamed_kb_keeps_its_folder(api, kb):
    """A KB renamed through the API keeps its folder, its files and its documents; the sync changes nothing."""
    _fill(api, kb, "alpha")
    before, files_before = _own(kb), _files(kb)
    assert api.patch("/api/v1/kbs/notes/", json={"name": "journal"}).status_code == 200
    _sync_all()
    assert _own(kb) == before and _files(kb) == files_before


def test_a_kb_stays_with_its_bot(kb, other_bot):
    """Giving a KB to another bot (the admin's form validates with clean()) is refused: its folder is its bot's."""
    kb.bot = other_bot
    with pytest.raises(ValidationError) as refused:
        kb.full_clean()
    assert "stays with the bot" in str(refused.value)


def test_a_missing_folder_deletes_nothing(api, kb):
    """A KB whose folder is not there (a volume not mounted) keeps its documents: the sync says why it skipped."""
    _fill(api, kb, "alpha")
    before = _own(kb)
    kb.folder.rename(kb.folder.with_name("elsewhere"))
    counts = services.knowledge_sync(kb=kb)
    assert counts["deleted"] == 0 and "missing" in counts["skipped"][0]
    assert _own(kb) == before


def test_the_migration_moves_old_folders_whole_and_the_sync_finds_everything(api, kb, settings):
    """`migrate` moves each `<data>/<bot name>/<kb name>/` to `<data>/bot_<id>/kb_<id>/` with its files (knowledge,
    uploads, inbox): the next sync marks nothing deleted and indexes nothing again, and uploads are still found.
    Empty id folders made before the migration give way; migrating back and forth works."""
    _fill(api, kb, "alpha")
    (kb.inbox_dir / "waiting.txt").write_text("Alice keeps bees.")
    before, files_before = _own(kb), _files(kb)
    old = settings.KBSITE_DATA_DIR / "alpha" / "notes"
    old.parent.mkdir(parents=True)
    kb.folder.rename(old)  # the release before kept it there
    kb.ensure_folders()  # a process of the new release started before `migrate`: empty folders only

    migration.folders_by_id(django_apps, None)
    assert not old.exists() and not old.parent.exists()
    assert _files(kb) == files_before and "inbox/waiting.txt" in files_before
    assert services.knowledge_sync(kb=kb) == {"added": 0, "changed": 0, "deleted": 0, "unchanged": 1, "skipped": []}
    assert _own(kb) == before
    upload = Document.objects.get(kb=kb, doc_type=Document.Type.UPLOAD)
    assert (kb.folder / upload.metadata["file"]).read_text().startswith("The alpha manual")

    migration.folders_by_name(django_apps, None)
    assert (old / "knowledge" / "alpha-notes.md").is_file() and not kb.folder.exists()
    migration.folders_by_id(django_apps, None)
    migration.folders_by_id(django_apps, None)  # again: nothing left to move
    assert _files(kb) == files_before


def test_the_migration_stops_when_both_places_hold_files(kb, settings):
    """A KB with files both where its names and where its ids put it is not merged by guesswork: the migration
    stops, naming both folders, and moves nothing."""
    old = settings.KBSITE_DATA_DIR / "alpha" / "notes" / "knowledge"
    old.mkdir(parents=True)
    (old / "one.md").write_text("one")
    (kb.knowledge_dir / "two.md").write_text("two")
    with pytest.raises(RuntimeError, match="both .* hold files"):
        migration.folders_by_id(django_apps, None)
    assert (old / "one.md").is_file() and (kb.knowledge_dir / "two.md").is_file()


def test_the_admin_shows_a_kbs_folder_and_keeps_its_bot(admin_client, kb, other_bot):
    """A KB's admin page shows its folder on disk and its bot read-only: a posted bot is not taken."""
    page = admin_client.get(f"/admin/kbsite/knowledgebase/{kb.pk}/change/")
    assert str(kb.folder) in page.content.decode()
    assert 'name="bot"' not in page.content.decode()
    form = {
        "name": "notes",
        "consolidate_interval_minutes": 30,
        "is_active": "on",
        "language": "auto",
        "bot": other_bot.pk,
    }
    assert admin_client.post(f"/admin/kbsite/knowledgebase/{kb.pk}/change/", form).status_code == 302
    assert KnowledgeBase.objects.get(pk=kb.pk).bot_id == kb.bot_id


def test_a_deleted_bots_kb_folders_go_to_the_trash_under_their_ids(kb, settings, django_capture_on_commit_callbacks):
    """Deleting a bot trashes each of its KBs' folders to `.trash/bot_<id>/kb_<id>-<name>-<time>/`, files kept."""
    (kb.knowledge_dir / "door.md").write_text("# Door\n")
    bot_id, kb_id, folder = kb.bot_id, kb.pk, kb.folder
    with django_capture_on_commit_callbacks(execute=True):
        Bot.objects.get(pk=bot_id).delete()
    assert not folder.exists()
    (trashed,) = (settings.KBSITE_DATA_DIR / ".trash" / f"bot_{bot_id}").iterdir()
    assert trashed.name.startswith(f"kb_{kb_id}-notes-") and (trashed / "knowledge" / "door.md").is_file()
