"""Inbox folders: settled files are extracted, ingested and moved to processed/, or to failed/ with the reason."""

from __future__ import annotations

import os
import time

import pytest

from kbsite.jobs import job_retry
from kbsite.models import JobRun
from knowledge.extractors import ExtractionFailed, extract_text
from memories import ingest
from memories.models import Memory
from tests.conftest import run_queued_tasks
from tests.documents import sample_files


def drop(kb, name: str, data: bytes, age: float = 60.0):
    path = kb.inbox_dir / name
    path.write_bytes(data)
    past = time.time() - age
    os.utime(path, (past, past))
    return path


@pytest.mark.parametrize("name", sorted(sample_files()))
def test_each_supported_type_is_extracted(name):
    """txt, md, json, csv, html, pdf and docx all yield their text."""
    text = extract_text(name, sample_files()[name])
    assert "Dana" in text and "Porto" in text
    assert "var x" not in text


def test_inbox_file_becomes_memories_and_moves_to_processed(kb, transactional_db):
    """A settled file is claimed, ingested with provenance, and moved to processed/."""
    drop(kb, "beekeeping.md", b"# Bees\n\nDana keeps three beehives in Porto and sells honey at the market.")
    assert ingest.inbox_scan() == 1
    run_queued_tasks()
    memory = Memory.objects.get()
    assert "Dana keeps three beehives" in memory.text
    assert memory.source == "inbox:beekeeping.md" and memory.source_file == "beekeeping.md"
    assert [p.name for p in kb.processed_dir.iterdir()] == ["beekeeping.md"]
    assert [p.name for p in kb.inbox_dir.iterdir() if not p.name.startswith(".")] == []
    assert JobRun.objects.get(kind="ingest_file").status == "succeeded"


def test_a_file_still_being_written_waits(kb, transactional_db):
    """A file modified within the settle time is left alone until it stops changing."""
    drop(kb, "growing.txt", b"Dana keeps bees.", age=0)
    assert ingest.inbox_scan() == 0
    assert (kb.inbox_dir / "growing.txt").exists()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "could not read .pdf"),
        ("archive.xyz", b"whatever", "unsupported file type"),
        ("empty.txt", b"", "empty"),
        ("photo.png", b"\x89PNG\r\n\x1a\n fake", "unsupported without a vision model"),
        ("voice.mp3", b"ID3 fake", "unsupported without an audio model"),
        ("clip.mp4", b"fake", "video is unsupported"),
        ("nul.txt", b"Alice likes tea.\x00 Bob too.", "binary, not text (it holds NUL bytes)"),
        ("blob.txt", bytes(range(256)) * 4, "binary, not text"),  # even length: not read as UTF-16 without a BOM
        ("nul.json", b'{"note": "a\\u0000b"}', "holds a NUL character"),
    ],
)
def test_a_broken_file_goes_to_failed_with_its_reason(kb, transactional_db, name, data, reason):
    """A file that cannot be read lands in failed/ with <name>.error.txt saying why, and the run is failed."""
    drop(kb, name, data)
    ingest.inbox_scan()
    run_queued_tasks()
    assert (kb.failed_dir / name).exists()
    assert reason in (kb.failed_dir / f"{name}.error.txt").read_text()
    run = JobRun.objects.get(kind="ingest_file")
    assert run.status == "failed" and reason in run.error


def test_llm_failure_parks_the_file_and_retry_processes_it(kb, transactional_db, fake_llm):
    """When the model keeps failing the file goes to failed/; an operator retry moves it back and ingests it."""
    for _ in range(3):
        fake_llm.reply_status(500)
    drop(kb, "notes.txt", b"Dana keeps three beehives in Porto.")
    ingest.inbox_scan()
    run_queued_tasks()
    failed = JobRun.objects.get(kind="ingest_file", status="failed")
    assert (kb.failed_dir / "notes.txt").exists() and "500" in (kb.failed_dir / "notes.txt.error.txt").read_text()
    fake_llm.reply_json({"add": [{"text": "Dana keeps three beehives in Porto."}], "supersede": [], "edges": []})
    assert job_retry(job=failed) is not None
    run_queued_tasks()
    assert Memory.objects.get().text == "Dana keeps three beehives in Porto."
    assert (kb.processed_dir / "notes.txt").exists() and not (kb.failed_dir / "notes.txt").exists()


def test_unsupported_type_error_names_the_supported_ones():
    """The reason for an unknown type lists what is supported."""
    with pytest.raises(ExtractionFailed, match=r"supported: .*\.docx.*\.pdf"):
        extract_text("x.exe", b"MZ")


def test_two_scanners_claim_a_file_once(kb, transactional_db):
    """Claiming is an atomic rename, so a second scan does not queue the same file again."""
    drop(kb, "once.txt", b"Dana keeps three beehives in Porto.")
    assert ingest.inbox_scan() == 1
    assert ingest.inbox_scan() == 0
    assert JobRun.objects.filter(kind="ingest_file").count() == 1
