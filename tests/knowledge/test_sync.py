"""Files → index: the sync of a KB's knowledge/ folder, and write-through."""

from __future__ import annotations

import itertools
import os

import pytest

from kbsite.models import JobRun
from knowledge import files, services
from knowledge.models import Chunk, Document
from knowledge.tasks import sync_knowledge_on_schedule

pytestmark = pytest.mark.django_db


def _write(kb, name: str, text: str) -> None:
    (kb.knowledge_dir / name).write_text(text)


def _indexed(kb) -> dict[str, Document]:
    return {d.slug: d for d in Document.objects.present().filter(kb=kb)}


def test_sync_detects_new_changed_and_deleted_files(kb):
    """New files are indexed with their title, a changed file is re-indexed, a removed one leaves the index."""
    _write(kb, "go-patterns.md", "# Go patterns\n\nPrefer small interfaces and table-driven tests.\n")
    _write(kb, "matrix-tips.md", "Bridges need an appservice registration file.\n")
    assert services.knowledge_sync(kb=kb) == {"added": 2, "changed": 0, "deleted": 0, "unchanged": 0, "skipped": []}
    docs = _indexed(kb)
    assert docs["go-patterns"].title == "Go patterns"
    assert docs["matrix-tips"].title == "Matrix tips"  # humanised slug when there is no heading
    assert all(d.status == Document.Status.DONE for d in docs.values())
    assert Chunk.objects.filter(document=docs["go-patterns"], embedding__isnull=False).count() == 1

    _write(kb, "go-patterns.md", "# Go patterns, revised\n\nAccept interfaces, return structs.\n")
    (kb.knowledge_dir / "matrix-tips.md").unlink()
    _write(kb, "gitea-admin.md", "# Gitea\n\nWebhooks are configured per repository.\n")
    assert services.knowledge_sync(kb=kb) == {"added": 1, "changed": 1, "deleted": 1, "unchanged": 0, "skipped": []}
    docs = _indexed(kb)
    assert set(docs) == {"go-patterns", "gitea-admin"}
    assert docs["go-patterns"].title == "Go patterns, revised"
    assert [c.text for c in docs["go-patterns"].chunks.all()] == [
        "# Go patterns, revised\n\nAccept interfaces, return structs."
    ]
    gone = Document.objects.get(kb=kb, slug="matrix-tips")
    assert gone.deleted_at is not None and not gone.chunks.exists()


def test_unchanged_files_are_not_reindexed(kb):
    """A second sync with nothing changed keeps the same chunks (no re-embedding)."""
    _write(kb, "notes.md", "# Notes\n\nThe deploy runs on Fridays.\n")
    services.knowledge_sync(kb=kb)
    before = list(Chunk.objects.filter(kb=kb).values_list("id", flat=True))
    assert services.knowledge_sync(kb=kb)["unchanged"] == 1
    assert list(Chunk.objects.filter(kb=kb).values_list("id", flat=True)) == before


def test_sync_skips_bad_names_and_symlinks(kb, tmp_path):
    """Files whose names are not valid slugs, and symlinks (which could point outside), are skipped and reported."""
    outside = tmp_path / "outside.md"
    outside.write_text("# Private\n\nnot for the bot\n")
    _write(kb, "Bad Name.md", "# Bad\n")
    _write(kb, "x.md", "# Too short a slug\n")
    os.symlink(outside, kb.knowledge_dir / "linked.md")
    counts = services.knowledge_sync(kb=kb)
    assert sorted(counts["skipped"]) == ["Bad Name.md", "linked.md", "x.md"]
    assert not _indexed(kb)


def test_write_through_keeps_file_and_index_equal(kb):
    """A write replaces the file atomically and re-indexes it in the same step; a later sync finds nothing to do."""
    document, created = services.document_write(kb=kb, slug="team", content="# Team\n\nAda leads the backend.\n")
    assert created
    path = files.document_path(kb, "team")
    assert path.read_text() == document.content
    document, created = services.document_write(kb=kb, slug="team", content="# Team\n\nGrace leads the backend.\n")
    assert not created
    assert path.read_text() == "# Team\n\nGrace leads the backend.\n" == Document.objects.get(pk=document.pk).content
    assert document.content_hash == files.content_hash(path.read_text())
    assert "Grace" in document.chunks.get().text
    assert not list(kb.knowledge_dir.glob(".tmp-*"))  # no temporary file left behind
    assert services.knowledge_sync(kb=kb)["unchanged"] == 1


@pytest.mark.parametrize(
    "slug", ["../escape", "..", "a", "UPPER", "-lead", "trail-", "under_score", "dot.md", "x" * 65, "", "a/b", None]
)
def test_bad_slugs_are_refused_before_touching_disk(kb, tmp_path, slug):
    """Slug rules and the folder boundary: nothing is written anywhere for an invalid slug."""
    before = sorted(p for p in tmp_path.rglob("*"))
    with pytest.raises(files.InvalidSlug, match="invalid slug"):
        services.document_write(kb=kb, slug=slug, content="# Evil\n")
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_symlinked_document_cannot_be_written_through(kb, tmp_path):
    """A symlink planted in the folder is not followed: writing its slug is refused and the target is untouched."""
    target = tmp_path / "victim.txt"
    target.write_text("original")
    os.symlink(target, kb.knowledge_dir / "victim.md")
    with pytest.raises(files.InvalidSlug, match="inside the knowledge folder"):
        services.document_write(kb=kb, slug="victim", content="# Overwritten\n")
    assert target.read_text() == "original"


def test_markdown_over_the_cap_is_refused(kb, settings):
    """Markdown written by bots is capped (64 KB by default), with a message saying so."""
    settings.KNOWLEDGE_MAX_MARKDOWN_BYTES = 1024
    with pytest.raises(services.DocumentRefused, match="at most 1024"):
        services.document_write(kb=kb, slug="big", content="x" * 1025)
    assert not (kb.knowledge_dir / "big.md").exists()


def test_scheduled_sync_keeps_a_run_record_only_when_something_changed(kb):
    """The schedule's quiet runs leave no trail; a run that indexed something is recorded with its counts."""
    assert sync_knowledge_on_schedule() == JobRun.Status.SUCCEEDED
    assert not JobRun.objects.filter(kind=JobRun.Kind.SYNC).exists()
    _write(kb, "seeded.md", "# Seeded\n\nPlaced before start.\n")
    sync_knowledge_on_schedule()
    run = JobRun.objects.get(kind=JobRun.Kind.SYNC)
    assert run.detail == {str(kb): {"added": 1, "changed": 0, "deleted": 0, "unchanged": 0, "skipped": []}}


def test_long_documents_are_chunked_with_overlap(kb, settings):
    """Chunks stay near the configured size, overlap, and cover the whole text."""
    settings.KNOWLEDGE_CHUNK_CHARS = 200
    settings.KNOWLEDGE_CHUNK_OVERLAP = 40
    text = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(60))
    pieces = services.chunks_make(text, markdown=False)
    assert len(pieces) > 5
    assert all(len(chunk) <= 200 for _, chunk in pieces)
    for (start, chunk), (next_start, _) in itertools.pairwise(pieces):
        assert next_start < start + len(chunk)  # overlapping
    assert pieces[-1][0] + len(pieces[-1][1]) == len(text)


def test_a_file_whose_text_cannot_be_stored_is_skipped_and_the_sync_goes_on(kb, other_kb):
    """A markdown file with a NUL byte is skipped with the reason; the folder's other files and the other KBs'
    folders are still synced, and the run succeeds."""
    _write(kb, "nul.md", "# T\nhello\x00world\n")
    _write(kb, "fine.md", "# Fine\n\nAll good.\n")
    (other_kb.knowledge_dir / "elsewhere.md").write_text("# Elsewhere\n\nStill synced.\n")
    job = services.knowledge_sync_all(job=JobRun.objects.create(kind=JobRun.Kind.SYNC))
    assert job.status == JobRun.Status.SUCCEEDED, job.error
    assert job.detail[str(kb)]["skipped"] == [
        "nul.md: its text holds a NUL character (\\u0000) at position 9, which cannot be stored"
    ]
    assert set(_indexed(kb)) == {"fine"} and set(_indexed(other_kb)) == {"elsewhere"}


def test_a_kb_whose_sync_fails_is_recorded_and_the_others_are_synced(kb, other_kb, monkeypatch):
    """One KB's failure (here a bug) is recorded with its error in the run; the other KBs are still synced, and
    the run ends failed with the name of the KB, not stuck running."""
    real = services.knowledge_sync

    def broken_for_one(*, kb):
        if kb.name == "notes":
            raise RuntimeError("disk on fire")
        return real(kb=kb)

    monkeypatch.setattr(services.sync, "knowledge_sync", broken_for_one)
    (other_kb.knowledge_dir / "elsewhere.md").write_text("# Elsewhere\n\nStill synced.\n")
    job = services.knowledge_sync_all(job=JobRun.objects.create(kind=JobRun.Kind.SYNC))
    assert job.status == JobRun.Status.FAILED and "alpha/notes" in job.error
    assert job.detail[str(kb)] == {"error": "RuntimeError: disk on fire"}
    assert set(_indexed(other_kb)) == {"elsewhere"}
